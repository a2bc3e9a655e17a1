// lector_line_recognizer.h — the C interface of Lector's neural line recognizer (C++
// inside): PP-OCRv6's text-line recognizer (an SVTR network with a CTC head) run by
// OpenCV's DNN module on one straightened line image at a time.
//
// Every OpenCV call is inside a try/catch: a cv::Exception (or any other) becomes a
// return value of -1 and a message in the caller's buffer, never an unwinding into Swift.
// A recognizer is used by one thread at a time.
#ifndef LECTOR_LINE_RECOGNIZER_H
#define LECTOR_LINE_RECOGNIZER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A loaded recognizer network (owner: whoever created it; see lector_lr_destroy).
typedef struct lector_lr lector_lr;

/// How a line image was given to the network: what maps a time step back to the image.
///
/// The image (turned a quarter counter-clockwise first when `turned`) is resized to the
/// network's height, `content_width` pixels wide, and padded on the right to
/// `input_width`; time step t covers the network's input columns
/// [t × input_width / steps, (t + 1) × input_width / steps), which are image columns
/// (rows when turned) divided by `scale`.
typedef struct {
    /// Time steps written (the output's length).
    int steps;
    /// The network's input width, padding included (at least 320).
    int input_width;
    /// Columns of that input holding the image; the rest is padding.
    int content_width;
    /// Network pixels per image pixel (the network's height / the image's height, or
    /// its width when turned).
    float scale;
    /// 1 when the image was taller than 1.5 × its width and read turned a quarter
    /// counter-clockwise (its top to bottom became left to right).
    int turned;
} lector_lr_geometry;

/// Loads the ONNX model at `model_path` (rewritten for OpenCV 4.6; see
/// scripts/fetch-engine-model), sets OpenCV's worker threads to `threads` (0: OpenCV's
/// choice; the setting is process-wide) and runs it once on a blank line, so that a
/// model OpenCV cannot run fails here. NULL with `error` set on failure.
lector_lr *lector_lr_create(const char *model_path, int threads, char *error, size_t error_size);

/// The number of output classes per time step (blank, the characters, space).
int lector_lr_classes(const lector_lr *recognizer);

/// Reads one line image: 8-bit, `channels` 1 (gray, given to the network as three equal
/// channels) or 3 (BGR), `stride` bytes per row. The text runs left to right (an image
/// taller than 1.5 × its width is read turned, top to bottom).
///
/// `output` is set to the network's output, kept by the recognizer (valid until the next
/// read or lector_lr_destroy): per time step, lector_lr_classes probabilities, row after
/// row (Swift's CTCDecoding takes the classes from it). Returns the number of time steps,
/// or -1 with `error` set.
int lector_lr_read(lector_lr *recognizer, const uint8_t *pixels, int width, int height, int stride, int channels,
                   const float **output, lector_lr_geometry *geometry, char *error, size_t error_size);

/// Frees the recognizer. NULL is allowed.
void lector_lr_destroy(lector_lr *recognizer);

#ifdef __cplusplus
}
#endif

#endif
