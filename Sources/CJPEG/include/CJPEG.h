#ifndef LECTOR_CJPEG_H
#define LECTOR_CJPEG_H

#include <stddef.h>
#include <stdint.h>

/// Outcome of a libjpeg call made through this target. libjpeg's own error handler
/// calls exit(); here every fatal libjpeg error longjmps back and becomes a code.
typedef enum {
    LECTOR_JPEG_OK = 0,
    /// The output buffer is too small; width and height hold the size it needs.
    LECTOR_JPEG_BUFFER_TOO_SMALL = 1,
    /// The data is not a decodable JPEG (bad marker, truncated, unsupported).
    LECTOR_JPEG_CORRUPT = 2,
    /// The encoder failed.
    LECTOR_JPEG_ENCODE_FAILED = 3,
    /// The header declares more pixels than the decoder's limit; nothing was decoded.
    LECTOR_JPEG_TOO_LARGE = 4,
} lector_jpeg_status;

/// A reusable decoder (one libjpeg decompress object). Not thread-safe: one owner.
typedef struct lector_jpeg_decoder lector_jpeg_decoder;

lector_jpeg_decoder *lector_jpeg_decoder_create(void);
void lector_jpeg_decoder_destroy(lector_jpeg_decoder *decoder);

/// Bounds what one decode may cost, checked before any pixel is decoded: the pixels the
/// header declares (`max_pixels`), the scans of a progressive JPEG (`max_scans`) and the
/// bytes of libjpeg's coefficient buffers (`max_memory`). 0 means no limit.
void lector_jpeg_decoder_set_limits(lector_jpeg_decoder *decoder, unsigned long max_pixels,
                                    int max_scans, long max_memory);

/// Decodes `data` straight to 8-bit grayscale (JCS_GRAYSCALE), scaled by
/// 1/`scale_denominator` (1, 2, 4 or 8) with libjpeg's DCT scaling.
/// Rows are written `out_stride` bytes apart. On LECTOR_JPEG_BUFFER_TOO_SMALL nothing
/// is written and `*width`/`*height` hold the output size.
lector_jpeg_status lector_jpeg_decode_gray(lector_jpeg_decoder *decoder,
                                           const uint8_t *data, size_t size,
                                           int scale_denominator,
                                           uint8_t *out, size_t out_capacity,
                                           int *width, int *height);

/// Decodes `data` at full size in colour, as stored: a gray JPEG as gray (`*components`
/// 1), a YCbCr one as full-range Y, Cb, Cr without conversion (`*ycbcr` 1), others as
/// RGB; 3 bytes a pixel for colour. On LECTOR_JPEG_BUFFER_TOO_SMALL nothing is written
/// and `*width`, `*height`, `*components` say what it needs.
lector_jpeg_status lector_jpeg_decode_color(lector_jpeg_decoder *decoder,
                                            const uint8_t *data, size_t size,
                                            uint8_t *out, size_t out_capacity,
                                            int *width, int *height, int *components, int *ycbcr);

/// Reads only the header: the image's full width and height.
lector_jpeg_status lector_jpeg_read_size(lector_jpeg_decoder *decoder,
                                         const uint8_t *data, size_t size,
                                         int *width, int *height);

/// The message of the last failure of this decoder ("" when none).
const char *lector_jpeg_decoder_message(const lector_jpeg_decoder *decoder);

/// Encodes 8-bit gray (`components` 1) or RGB (`components` 3) pixels; with `ycbcr`
/// set, the three components are full-range Y, Cb, Cr, stored without conversion.
/// On success `*out` is a malloc'ed buffer of `*out_size` bytes: free it with
/// lector_jpeg_free. `message` (at least 200 bytes) receives the error text on failure.
lector_jpeg_status lector_jpeg_encode(const uint8_t *pixels, int width, int height,
                                      size_t stride, int components, int ycbcr, int quality,
                                      uint8_t **out, size_t *out_size,
                                      char *message, size_t message_capacity);

void lector_jpeg_free(uint8_t *buffer);

#endif
