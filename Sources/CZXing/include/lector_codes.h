// QR codes and barcodes found in a gray image, through ZXing-C++ (Debian's libzxing:
// 1.4 on Debian 12, 2.x on Debian 13) behind a narrow C interface.
#ifndef LECTOR_CODES_H
#define LECTOR_CODES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The formats, as bits of a set (Lector's own numbering: the same with either library).
enum {
    LECTOR_CODE_QR = 1 << 0,
    LECTOR_CODE_MICRO_QR = 1 << 1,
    LECTOR_CODE_DATA_MATRIX = 1 << 2,
    LECTOR_CODE_AZTEC = 1 << 3,
    LECTOR_CODE_PDF417 = 1 << 4,
    LECTOR_CODE_EAN13 = 1 << 5,
    LECTOR_CODE_EAN8 = 1 << 6,
    LECTOR_CODE_UPCA = 1 << 7,
    LECTOR_CODE_UPCE = 1 << 8,
    LECTOR_CODE_CODE128 = 1 << 9,
    LECTOR_CODE_CODE39 = 1 << 10,
    LECTOR_CODE_CODE93 = 1 << 11,
    LECTOR_CODE_ITF = 1 << 12,
    LECTOR_CODE_CODABAR = 1 << 13,
};

/// One code found: its format (one LECTOR_CODE_* bit), its content as the library
/// decoded it (`text`, UTF-8, NUL-terminated) and as bytes, and its corners in image
/// pixels (top-left, top-right, bottom-right, bottom-left as the code is read: x, y).
typedef struct {
    uint32_t format;
    char *text;
    uint8_t *bytes;
    size_t byte_count;
    int32_t corners[8];
} lector_code;

/// Finds the codes of `formats` in the 8-bit gray image `luma` (`stride` bytes a row).
/// Never throws nor aborts on an image: the library's image pyramid (whose duplicate
/// check asserted on linear codes in 1.4) is not used.
/// - Returns: how many codes `*codes` holds (free them with lector_codes_free), or -1
///   when the library failed (its message in `error`, `error_size` bytes at most).
int lector_codes_read(const uint8_t *luma, int width, int height, int stride, uint32_t formats,
                      lector_code **codes, char *error, size_t error_size);

/// Frees what lector_codes_read returned.
void lector_codes_free(lector_code *codes, int count);

/// The library's version ("1.4.0").
const char *lector_codes_library_version(void);

#ifdef __cplusplus
}
#endif

#endif
