// The only place that calls libjpeg(-turbo). libjpeg reports fatal errors through
// error_exit, which by default prints and calls exit(): a corrupt camera frame would end
// the daemon. Here error_exit longjmps back to the call, which returns a status code.
#include "CJPEG.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include <jerror.h>

struct lector_error_manager {
    struct jpeg_error_mgr base;
    jmp_buf escape;
    int premature_end;  // the entropy-coded data ended early: the image is incomplete
    char message[JMSG_LENGTH_MAX];
};

struct lector_jpeg_decoder {
    struct jpeg_decompress_struct cinfo;  // first: the progress monitor casts back to the decoder
    struct lector_error_manager error;
    struct jpeg_progress_mgr progress;
    unsigned long max_pixels;  // 0: no limit
    int max_scans;             // 0: no limit
    long max_memory;           // 0: no limit
};

// Called by libjpeg while it absorbs the input: a progressive JPEG may carry thousands
// of scans over one large coefficient buffer, each a full pass; stop after the budget.
static void lector_progress(j_common_ptr common) {
    lector_jpeg_decoder *decoder = (lector_jpeg_decoder *)common;
    if (decoder->max_scans > 0 && decoder->cinfo.input_scan_number > decoder->max_scans) {
        snprintf(decoder->error.message, sizeof decoder->error.message,
                 "more than %d progressive scans", decoder->max_scans);
        longjmp(decoder->error.escape, 1);
    }
}

static void lector_error_exit(j_common_ptr cinfo) {
    struct lector_error_manager *error = (struct lector_error_manager *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, error->message);
    longjmp(error->escape, 1);
}

static void lector_emit_message(j_common_ptr cinfo, int level) {
    struct lector_error_manager *error = (struct lector_error_manager *)cinfo->err;
    if (level < 0) {  // a warning: remember truncation, stay silent otherwise
        int code = cinfo->err->msg_code;
        // Data that ends early (EOF, a marker in the middle of the scan, lost sync)
        // leaves part of the image gray filler: a damaged frame. Other warnings, such
        // as the extraneous bytes some webcams add, are harmless.
        if (code == JWRN_JPEG_EOF || code == JWRN_HIT_MARKER || code == JWRN_MUST_RESYNC) {
            error->premature_end = 1;
            (*cinfo->err->format_message)(cinfo, error->message);
        }
        cinfo->err->num_warnings++;
    }
}

static void lector_output_message(j_common_ptr cinfo) { (void)cinfo; }

static void install_error_manager(struct lector_error_manager *error) {
    jpeg_std_error(&error->base);
    error->base.error_exit = lector_error_exit;
    error->base.emit_message = lector_emit_message;
    error->base.output_message = lector_output_message;
    error->premature_end = 0;
    error->message[0] = 0;
}

lector_jpeg_decoder *lector_jpeg_decoder_create(void) {
    lector_jpeg_decoder *decoder = calloc(1, sizeof *decoder);
    if (!decoder) return NULL;
    install_error_manager(&decoder->error);
    decoder->cinfo.err = &decoder->error.base;
    if (setjmp(decoder->error.escape)) {
        jpeg_destroy_decompress(&decoder->cinfo);
        free(decoder);
        return NULL;
    }
    jpeg_create_decompress(&decoder->cinfo);
    decoder->progress.progress_monitor = lector_progress;
    decoder->cinfo.progress = &decoder->progress;
    return decoder;
}

void lector_jpeg_decoder_set_limits(lector_jpeg_decoder *decoder, unsigned long max_pixels,
                                    int max_scans, long max_memory) {
    decoder->max_pixels = max_pixels;
    decoder->max_scans = max_scans;
    decoder->max_memory = max_memory;
}

void lector_jpeg_decoder_destroy(lector_jpeg_decoder *decoder) {
    if (!decoder) return;
    jpeg_destroy_decompress(&decoder->cinfo);
    free(decoder);
}

const char *lector_jpeg_decoder_message(const lector_jpeg_decoder *decoder) {
    return decoder->error.message;
}

static lector_jpeg_status start(lector_jpeg_decoder *decoder, const uint8_t *data, size_t size) {
    decoder->error.premature_end = 0;
    decoder->error.message[0] = 0;
    decoder->error.base.num_warnings = 0;
    if (size < 4 || data[0] != 0xFF || data[1] != 0xD8) {
        snprintf(decoder->error.message, sizeof decoder->error.message, "no JPEG start-of-image marker");
        return LECTOR_JPEG_CORRUPT;
    }
    jpeg_mem_src(&decoder->cinfo, data, (unsigned long)size);
    jpeg_read_header(&decoder->cinfo, TRUE);
    unsigned long pixels = (unsigned long)decoder->cinfo.image_width * decoder->cinfo.image_height;
    if (decoder->max_pixels > 0 && pixels > decoder->max_pixels) {
        snprintf(decoder->error.message, sizeof decoder->error.message,
                 "declares %ux%u, over the limit of %lu pixels",
                 decoder->cinfo.image_width, decoder->cinfo.image_height, decoder->max_pixels);
        jpeg_abort_decompress(&decoder->cinfo);
        return LECTOR_JPEG_TOO_LARGE;
    }
    // Bounds the coefficient buffers of progressive and multi-scan JPEGs: without a
    // backing store, libjpeg fails cleanly when they would exceed it.
    decoder->cinfo.mem->max_memory_to_use = decoder->max_memory;
    return LECTOR_JPEG_OK;
}

lector_jpeg_status lector_jpeg_read_size(lector_jpeg_decoder *decoder,
                                         const uint8_t *data, size_t size,
                                         int *width, int *height) {
    if (setjmp(decoder->error.escape)) {
        jpeg_abort_decompress(&decoder->cinfo);
        return LECTOR_JPEG_CORRUPT;
    }
    lector_jpeg_status status = start(decoder, data, size);
    if (status != LECTOR_JPEG_OK) return status;
    *width = (int)decoder->cinfo.image_width;
    *height = (int)decoder->cinfo.image_height;
    jpeg_abort_decompress(&decoder->cinfo);
    return LECTOR_JPEG_OK;
}

/// Decodes into `out` in `space` (JCS_GRAYSCALE, JCS_YCbCr or JCS_RGB); `space` NULL: gray.
/// With a space asked for, a gray JPEG decodes gray and a YCbCr one as YCbCr (no
/// conversion); others as RGB. `*space` says which.
static lector_jpeg_status decode(lector_jpeg_decoder *decoder, const uint8_t *data, size_t size,
                                 int scale_denominator, uint8_t *out, size_t out_capacity,
                                 int *width, int *height, int *space) {
    struct jpeg_decompress_struct *cinfo = &decoder->cinfo;
    if (setjmp(decoder->error.escape)) {
        jpeg_abort_decompress(cinfo);
        return LECTOR_JPEG_CORRUPT;
    }
    lector_jpeg_status status = start(decoder, data, size);
    if (status != LECTOR_JPEG_OK) return status;

    if (space == NULL || cinfo->jpeg_color_space == JCS_GRAYSCALE) {
        cinfo->out_color_space = JCS_GRAYSCALE;
    } else {
        cinfo->out_color_space = cinfo->jpeg_color_space == JCS_YCbCr ? JCS_YCbCr : JCS_RGB;
    }
    if (space != NULL) *space = (int)cinfo->out_color_space;
    cinfo->scale_num = 1;
    cinfo->scale_denom = (unsigned)(scale_denominator > 0 ? scale_denominator : 1);
    cinfo->dct_method = JDCT_ISLOW;
    jpeg_calc_output_dimensions(cinfo);
    *width = (int)cinfo->output_width;
    *height = (int)cinfo->output_height;
    size_t stride = (size_t)cinfo->output_width * (size_t)cinfo->output_components;
    if (out == NULL || out_capacity < stride * cinfo->output_height) {
        jpeg_abort_decompress(cinfo);
        return LECTOR_JPEG_BUFFER_TOO_SMALL;
    }

    jpeg_start_decompress(cinfo);
    while (cinfo->output_scanline < cinfo->output_height) {
        JSAMPROW row = out + (size_t)cinfo->output_scanline * stride;
        jpeg_read_scanlines(cinfo, &row, 1);
        if (decoder->error.premature_end) {  // truncated: the rest would be filler
            jpeg_abort_decompress(cinfo);
            return LECTOR_JPEG_CORRUPT;
        }
    }
    jpeg_finish_decompress(cinfo);
    if (decoder->error.premature_end) return LECTOR_JPEG_CORRUPT;
    return LECTOR_JPEG_OK;
}

lector_jpeg_status lector_jpeg_decode_gray(lector_jpeg_decoder *decoder,
                                           const uint8_t *data, size_t size,
                                           int scale_denominator,
                                           uint8_t *out, size_t out_capacity,
                                           int *width, int *height) {
    return decode(decoder, data, size, scale_denominator, out, out_capacity, width, height, NULL);
}

lector_jpeg_status lector_jpeg_decode_color(lector_jpeg_decoder *decoder,
                                            const uint8_t *data, size_t size,
                                            uint8_t *out, size_t out_capacity,
                                            int *width, int *height, int *components, int *ycbcr) {
    int space = JCS_GRAYSCALE;
    lector_jpeg_status status = decode(decoder, data, size, 1, out, out_capacity, width, height, &space);
    *components = space == JCS_GRAYSCALE ? 1 : 3;
    *ycbcr = space == JCS_YCbCr;
    return status;
}

lector_jpeg_status lector_jpeg_encode(const uint8_t *pixels, int width, int height,
                                      size_t stride, int components, int ycbcr, int quality,
                                      uint8_t **out, size_t *out_size,
                                      char *message, size_t message_capacity) {
    struct jpeg_compress_struct cinfo;
    struct lector_error_manager error;
    unsigned char *buffer = NULL;
    unsigned long buffer_size = 0;
    install_error_manager(&error);
    cinfo.err = &error.base;
    if (setjmp(error.escape)) {
        jpeg_destroy_compress(&cinfo);
        free(buffer);
        if (message && message_capacity) snprintf(message, message_capacity, "%s", error.message);
        return LECTOR_JPEG_ENCODE_FAILED;
    }
    jpeg_create_compress(&cinfo);
    jpeg_mem_dest(&cinfo, &buffer, &buffer_size);
    cinfo.image_width = (JDIMENSION)width;
    cinfo.image_height = (JDIMENSION)height;
    cinfo.input_components = components;
    cinfo.in_color_space = components == 1 ? JCS_GRAYSCALE : ycbcr ? JCS_YCbCr : JCS_RGB;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality, TRUE);
    jpeg_start_compress(&cinfo, TRUE);
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row = (JSAMPROW)(pixels + (size_t)cinfo.next_scanline * stride);
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    *out = buffer;
    *out_size = buffer_size;
    return LECTOR_JPEG_OK;
}

void lector_jpeg_free(uint8_t *buffer) { free(buffer); }
