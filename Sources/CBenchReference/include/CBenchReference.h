#ifndef LECTOR_CBENCHREFERENCE_H
#define LECTOR_CBENCHREFERENCE_H

#include <stddef.h>
#include <stdint.h>

/// The reference a C programmer would write instead of Lector: Tesseract's C API fed a
/// gray buffer, then a word iteration. `lector-bench` times Lector's pipeline against it.

/// One TessBaseAPI, initialised like Lector's (PSM, debug output to /dev/null).
typedef struct bench_reference bench_reference;

/// Returns NULL when the language cannot be loaded. `data_path` may be NULL.
bench_reference *bench_reference_create(const char *language, const char *data_path, int page_segmentation);
void bench_reference_destroy(bench_reference *reference);

/// What one recognition produced and what it cost.
typedef struct {
    /// Words with non-blank text.
    int words;
    /// Bytes of word text, summed.
    int text_bytes;
    /// Sum of the words' confidences (0-100), a cheap fingerprint of the result.
    double confidence_sum;
    /// Nanoseconds in SetImage + Recognize, and in the word iteration.
    int64_t recognize_ns;
    int64_t walk_ns;
    /// CPU nanoseconds of the calling thread in SetImage + Recognize.
    int64_t recognize_cpu_ns;
} bench_reference_result;

/// SetImage from the gray buffer, Recognize, iterate words (text, box, confidence),
/// Clear. When `text_out` is non-NULL, the words are written there separated by single
/// spaces (NUL-terminated, cut at `text_capacity`). Returns 0, or -1 if Recognize failed.
int bench_reference_recognize(bench_reference *reference, const uint8_t *gray, int width, int height,
                              int bytes_per_line, int resolution, char *text_out, size_t text_capacity,
                              bench_reference_result *result);

/// The Y samples of a YUYV frame, the way a C program would pick them.
void bench_reference_yuyv_to_y(const uint8_t *yuyv, int width, int height, int bytes_per_line, uint8_t *gray);

/// What a minimal C fan-out does per message: one non-blocking send of `line` to each
/// of `count` connected sockets. Returns how many took the whole line.
int bench_reference_fan_out(const int *sockets, int count, const uint8_t *line, size_t length);

/// Current CLOCK_MONOTONIC in nanoseconds.
int64_t bench_reference_now_ns(void);

/// CPU time of the calling thread in nanoseconds.
int64_t bench_reference_thread_cpu_ns(void);

/// Makes standard output line-buffered, so a log file shows rows as they are measured.
void bench_line_buffer_stdout(void);

#endif
