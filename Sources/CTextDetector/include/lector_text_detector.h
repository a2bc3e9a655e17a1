// lector_text_detector.h — the C interface of Lector's text-line detector (C++ inside):
// PP-OCRv4's DB text detector run by OpenCV's DNN module, and DB's post-processing
// (the probability map to rotated line boxes) with OpenCV's imgproc.
//
// Every OpenCV call is inside a try/catch: a cv::Exception (or any other) becomes a
// return value of -1 and a message in the caller's buffer, never an unwinding into Swift.
// A detector is used by one thread at a time.
#ifndef LECTOR_TEXT_DETECTOR_H
#define LECTOR_TEXT_DETECTOR_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A loaded detector network (owner: whoever created it; see lector_td_destroy).
typedef struct lector_td lector_td;

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
    /// The image is shrunk (never enlarged) so that its longer side is at most this,
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

/// Loads the ONNX model at `model_path` (with Clip nodes in the attribute form; see
/// scripts/fetch-detector-model) and sets OpenCV's worker threads to `threads` (0:
/// OpenCV's choice; the setting is process-wide). NULL with `error` set on failure.
lector_td *lector_td_create(const char *model_path, int threads, char *error, size_t error_size);

/// Finds text lines in an 8-bit gray image (`stride` bytes per row; the luma is given
/// to the network as three equal channels). Writes up to `capacity` boxes, best-scored
/// regions first in reading order (top to bottom), in the image's pixels. Returns the
/// number written, or -1 with `error` set.
/// `map_width`/`map_height` (may be NULL) receive the size of the probability map.
int lector_td_detect(lector_td *detector, const uint8_t *gray, int width, int height, int stride,
                     const lector_td_params *params, lector_td_box *boxes, int capacity,
                     int *map_width, int *map_height, char *error, size_t error_size);

/// DB's post-processing alone, on a probability map (`map`, `map_width` × `map_height`
/// floats, row after row), with boxes scaled to an image of `image_width` ×
/// `image_height`. Returns the number of boxes written, or -1 with `error` set.
int lector_td_boxes_from_map(const float *map, int map_width, int map_height, int image_width, int image_height,
                             const lector_td_params *params, lector_td_box *boxes, int capacity,
                             char *error, size_t error_size);

/// Frees the detector. NULL is allowed.
void lector_td_destroy(lector_td *detector);

#ifdef __cplusplus
}
#endif

#endif
