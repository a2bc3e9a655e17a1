// scripts/check-zxing-api.c — reads the codes in binary PGM images through the shim's
// C API (Sources/CZXing/include/lector_codes.h), as lectord's CodeReader does: every
// format asked for. Built and run by scripts/check-zxing-api against each Debian
// release's ZXing-C++.
//
// usage: check-zxing-api IMAGE.pgm...
// Prints "library VERSION", then per image one line per code:
// "IMAGE<TAB>FORMAT<TAB>TEXT<TAB>BYTES" (the bytes in hex), or "IMAGE<TAB>-<TAB><TAB>" when
// none was found. Exits 1 when an image cannot be read or
// the library failed.
#include "lector_codes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const formatNames[] = {
    "qr", "micro_qr", "data_matrix", "aztec", "pdf417", "ean13", "ean8",
    "upc_a", "upc_e", "code128", "code39", "code93", "itf", "codabar",
};
enum { formatCount = sizeof formatNames / sizeof formatNames[0] };

/// The name of one LECTOR_CODE_* bit, "?" for anything else.
static const char *formatName(uint32_t bit) {
    for (int i = 0; i < formatCount; ++i)
        if (bit == (1u << i)) return formatNames[i];
    return "?";
}

/// The next number of a PGM header, past white space and comments; -1 when none.
static long headerNumber(FILE *file) {
    int c = fgetc(file);
    while (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '#') {
        if (c == '#')
            while (c != '\n' && c != EOF) c = fgetc(file);
        c = fgetc(file);
    }
    long value = -1;
    while (c >= '0' && c <= '9') {
        value = (value < 0 ? 0 : value * 10) + (c - '0');
        c = fgetc(file);
    }
    return value;
}

/// An 8-bit binary PGM ("P5", maxval 255) as luma; NULL when it is not one.
static uint8_t *readPGM(const char *path, int *width, int *height) {
    FILE *file = fopen(path, "rb");
    if (!file) return NULL;
    uint8_t *luma = NULL;
    char magic[2];
    if (fread(magic, 1, 2, file) == 2 && magic[0] == 'P' && magic[1] == '5') {
        long w = headerNumber(file), h = headerNumber(file), maxval = headerNumber(file);
        if (w > 0 && h > 0 && w <= 20000 && h <= 20000 && maxval == 255) {
            luma = malloc((size_t)w * (size_t)h);
            if (luma && fread(luma, 1, (size_t)w * (size_t)h, file) != (size_t)w * (size_t)h) {
                free(luma);
                luma = NULL;
            }
            *width = (int)w;
            *height = (int)h;
        }
    }
    fclose(file);
    return luma;
}

int main(int argc, char **argv) {
    printf("library %s\n", lector_codes_library_version());
    const uint32_t allFormats = (1u << formatCount) - 1;
    int status = 0;
    for (int i = 1; i < argc; ++i) {
        int width = 0, height = 0;
        uint8_t *luma = readPGM(argv[i], &width, &height);
        if (!luma) {
            fprintf(stderr, "%s: not an 8-bit binary PGM\n", argv[i]);
            status = 1;
            continue;
        }
        lector_code *codes = NULL;
        char error[256] = "";
        int count = lector_codes_read(luma, width, height, width, allFormats, &codes, error, sizeof error);
        free(luma);
        if (count < 0) {
            fprintf(stderr, "%s: the library failed: %s\n", argv[i], error);
            status = 1;
            continue;
        }
        if (count == 0) printf("%s\t-\t\t\n", argv[i]);
        for (int c = 0; c < count; ++c) {
            printf("%s\t%s\t%s\t", argv[i], formatName(codes[c].format), codes[c].text);
            for (size_t b = 0; b < codes[c].byte_count; ++b) printf("%02x", codes[c].bytes[b]);
            printf("\n");
        }
        lector_codes_free(codes, count);
    }
    return status;
}
