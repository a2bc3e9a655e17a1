// lector_line_recognizer.h — the C interface of Lector's neural line recognizer (C++
// inside): what PP-OCRv6's text-line recognizer (an SVTR network with a CTC head) is
// given for one line image, and the most probable class per time step of its output.
// The network itself runs in ONNX Runtime (lector_onnx.h).
//
// Every OpenCV call is inside a try/catch: a cv::Exception (or any other) becomes a
// return value of -1 and a message in the caller's buffer, never an unwinding into Swift.
#ifndef LECTOR_LINE_RECOGNIZER_H
#define LECTOR_LINE_RECOGNIZER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The network's input height.
enum { LECTOR_LR_HEIGHT = 48 };

/// How a line image is given to the network: what maps a time step back to the image.
///
/// The image (turned a quarter counter-clockwise first when `turned`) is resized to the
/// network's height, `content_width` pixels wide, and padded on the right to
/// `input_width`; time step t covers the network's input columns
/// [t × input_width / steps, (t + 1) × input_width / steps), which are image columns
/// (rows when turned) divided by `scale`.
typedef struct {
    /// Time steps of the output (0 until the network has run).
    int steps;
    /// The network's input width, padding included (at least 320).
    int input_width;
    /// Columns of that input holding the image; the rest is padding.
    int content_width;
    /// Network pixels per image pixel (the network's height / the image's height, or
    /// its width when turned).
    float scale;
    /// 1 when the image is taller than 1.5 × its width and read turned a quarter
    /// counter-clockwise (its top to bottom becomes left to right).
    int turned;
} lector_lr_geometry;

/// The input's geometry for a line image of `width` × `height` (`steps` 0).
void lector_lr_input_geometry(int width, int height, lector_lr_geometry *geometry);

/// Writes the network's input for one line image (8-bit, `channels` 1: gray, given as
/// three equal channels, or 3: BGR; `stride` bytes per row) into `input`: 3 ×
/// LECTOR_LR_HEIGHT × `geometry->input_width` floats (NCHW, (x / 255 − 0.5) / 0.5, zero
/// padding), as `geometry` (lector_lr_input_geometry of the same size) says. Returns 0,
/// or -1 with `error` set.
int lector_lr_input(const uint8_t *pixels, int width, int height, int stride, int channels, const lector_lr_geometry *geometry,
                    float *input, char *error, size_t error_size);

#ifdef __cplusplus
}
#endif

#endif
