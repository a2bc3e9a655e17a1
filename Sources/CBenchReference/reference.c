#include "CBenchReference.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <tesseract/capi.h>

struct bench_reference {
    TessBaseAPI *api;
};

int64_t bench_reference_now_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

int64_t bench_reference_thread_cpu_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

bench_reference *bench_reference_create(const char *language, const char *data_path, int page_segmentation) {
    bench_reference *reference = calloc(1, sizeof *reference);
    if (!reference) return NULL;
    reference->api = TessBaseAPICreate();
    TessBaseAPISetVariable(reference->api, "debug_file", "/dev/null");
    if (TessBaseAPIInit3(reference->api, data_path, language) != 0) {
        TessBaseAPIDelete(reference->api);
        free(reference);
        return NULL;
    }
    TessBaseAPISetPageSegMode(reference->api, (TessPageSegMode)page_segmentation);
    return reference;
}

void bench_reference_destroy(bench_reference *reference) {
    if (!reference) return;
    TessBaseAPIEnd(reference->api);
    TessBaseAPIDelete(reference->api);
    free(reference);
}

static int is_blank(const char *text) {
    for (; *text; text++) {
        if (*text != ' ' && *text != '\n' && *text != '\t' && *text != '\r') return 0;
    }
    return 1;
}

int bench_reference_recognize(bench_reference *reference, const uint8_t *gray, int width, int height,
                              int bytes_per_line, int resolution, char *text_out, size_t text_capacity,
                              bench_reference_result *result) {
    TessBaseAPI *api = reference->api;
    memset(result, 0, sizeof *result);
    size_t used = 0;
    if (text_out && text_capacity) text_out[0] = 0;

    int64_t start = bench_reference_now_ns();
    int64_t start_cpu = bench_reference_thread_cpu_ns();
    TessBaseAPISetImage(api, gray, width, height, 1, bytes_per_line);
    TessBaseAPISetSourceResolution(api, resolution);
    int status = TessBaseAPIRecognize(api, NULL);
    int64_t recognized = bench_reference_now_ns();
    result->recognize_ns = recognized - start;
    result->recognize_cpu_ns = bench_reference_thread_cpu_ns() - start_cpu;
    if (status != 0) {
        TessBaseAPIClear(api);
        return -1;
    }

    TessResultIterator *iterator = TessBaseAPIGetIterator(api);
    if (iterator) {
        TessPageIterator *page = TessResultIteratorGetPageIterator(iterator);
        do {
            char *word = TessResultIteratorGetUTF8Text(iterator, RIL_WORD);
            if (!word) continue;
            int left, top, right, bottom;
            if (!is_blank(word) && TessPageIteratorBoundingBox(page, RIL_WORD, &left, &top, &right, &bottom)
                && right > left && bottom > top) {
                result->words++;
                size_t length = strlen(word);
                result->text_bytes += (int)length;
                result->confidence_sum += TessResultIteratorConfidence(iterator, RIL_WORD);
                if (text_out && used + length + 2 <= text_capacity) {
                    if (used) text_out[used++] = ' ';
                    memcpy(text_out + used, word, length);
                    used += length;
                    text_out[used] = 0;
                }
            }
            TessDeleteText(word);
        } while (TessResultIteratorNext(iterator, RIL_WORD));
        TessResultIteratorDelete(iterator);
    }
    TessBaseAPIClear(api);
    result->walk_ns = bench_reference_now_ns() - recognized;
    return 0;
}

void bench_reference_yuyv_to_y(const uint8_t *yuyv, int width, int height, int bytes_per_line, uint8_t *gray) {
    for (int y = 0; y < height; y++) {
        const uint8_t *row = yuyv + (size_t)y * bytes_per_line;
        uint8_t *out = gray + (size_t)y * width;
        for (int x = 0; x < width; x++) out[x] = row[2 * x];
    }
}

void bench_line_buffer_stdout(void) { setvbuf(stdout, NULL, _IOLBF, 0); }

int bench_reference_fan_out(const int *sockets, int count, const uint8_t *line, size_t length) {
    int whole = 0;
    for (int i = 0; i < count; i++) {
        if (send(sockets[i], line, length, MSG_NOSIGNAL | MSG_DONTWAIT) == (ssize_t)length) whole++;
    }
    return whole;
}
