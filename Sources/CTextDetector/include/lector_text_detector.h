// lector_text_detector.h — the C interface of Lector's text-line detector (C++ inside):
// what PP-OCRv4's DB text detector is given (an image resized to multiples of 32 and
// normalized) and DB's post-processing (its probability map to rotated line boxes), with
// OpenCV's imgproc. The network itself runs in ONNX Runtime (lector_onnx.h).
//
// Every OpenCV call is inside a try/catch: a cv::Exception (or any other) becomes a
// return value of -1 and a message in the caller's buffer, never an unwinding into Swift.
#ifndef LECTOR_TEXT_DETECTOR_H
#define LECTOR_TEXT_DETECTOR_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// One detected text line: a rotated rectangle, in the input image's pixels.
typedef struct {
    /// Centre.
    float cx, cy;
    /// Size along the rectangle's own axes (width along `angle`).
    float width, height;
    /// Degrees, as OpenCV's RotatedRect (clockwise in image coordinates, y down).
    float angle;
    /// Mean text probability inside the box before it was expanded, 0-1.
    float score;
} lector_td_box;

/// How to detect; lector_td_default_params fills PaddleOCR's values.
typedef struct {
    /// The image is shrunk so that its longer side is at most this,
    /// then each side rounded to a multiple of 32 (the network's stride).
    int max_side;
    /// A smaller image is enlarged so that its longer side is this (0: never enlarged):
    /// a plate or a label cut out of a photo is too small for the network as it is.
    int min_side;
    /// A pixel is text when its probability is above this (DB's `thresh`, 0.3).
    float threshold;
    /// A region is kept when its mean probability is at least this (`box_thresh`).
    float box_threshold;
    /// How far the shrunk DB region is grown back: area × ratio / perimeter (`unclip_ratio`).
    float unclip_ratio;
    /// Regions shorter than this on their short side (probability-map pixels) are dropped.
    float min_size;
    /// At most this many regions are looked at (`max_candidates`).
    int max_candidates;
} lector_td_params;

/// PaddleOCR's DB post-processing defaults (max_side 960, threshold 0.3, box 0.5,
/// unclip 1.6, min size 3, 1000 candidates).
void lector_td_default_params(lector_td_params *params);

/// The network's input size for an image of `width` × `height`: shrunk (or, below
/// `min_side`, enlarged) to `max_side` on its longer side, each side rounded to a
/// multiple of 32 (the network's stride).
void lector_td_input_size(int width, int height, const lector_td_params *params, int *input_width, int *input_height);

/// Writes the network's input for an 8-bit gray image (`stride` bytes per row) into
/// `input`: 3 × `input_height` × `input_width` floats (NCHW; the luma in all three
/// channels, normalized with ImageNet's mean and deviation). Returns 0, or -1 with
/// `error` set.
int lector_td_input(const uint8_t *gray, int width, int height, int stride, int input_width, int input_height, float *input,
                    char *error, size_t error_size);

/// DB's post-processing: the text lines of a probability map (`map`, `map_width` ×
/// `map_height` floats, row after row: the network's output), with boxes scaled to an
/// image of `image_width` × `image_height`. Writes up to `capacity` boxes, top to bottom,
/// in the image's pixels. Returns the number written, or -1 with `error` set.
int lector_td_boxes_from_map(const float *map, int map_width, int map_height, int image_width, int image_height,
                             const lector_td_params *params, lector_td_box *boxes, int capacity,
                             char *error, size_t error_size);

#ifdef __cplusplus
}
#endif

#endif
