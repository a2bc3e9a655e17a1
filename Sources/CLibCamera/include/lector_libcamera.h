// lector_libcamera.h — the C interface of Lector's libcamera target (C++ inside).
//
// One camera is opened, configured with one stream, given mapped buffers and started;
// completed requests are handed out one at a time (lector_lc_next) and queued again
// by their index (lector_lc_requeue). libcamera's own thread completes requests; the
// interface is safe to use from the capture thread plus any thread that requeues.
#ifndef LECTOR_LIBCAMERA_H
#define LECTOR_LIBCAMERA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// An open, streaming camera (owner: whoever opened it; see lector_lc_destroy).
typedef struct lector_lc_camera lector_lc_camera;

/// What the camera was configured to, and what it says about itself.
typedef struct {
    /// V4L2 fourcc of the stream's pixels (NV12, YU12, MJPG, GREY).
    uint32_t fourcc;
    unsigned width, height;
    /// Bytes per row of the first plane (0 for MJPEG).
    unsigned stride;
    /// Number of buffers (one request each).
    unsigned buffer_count;
    /// properties::Rotation in degrees (counter-clockwise correction), or -1.
    int rotation;
    /// properties::Location: 0 front, 1 back, 2 external, or -1.
    int location;
    /// The configured frame rate when known, else 0.
    double fps;
    char id[256];
    char model[128];
} lector_lc_info;

/// One completed request.
typedef struct {
    /// The request's (and buffer's) index, for lector_lc_buffer and lector_lc_requeue.
    int index;
    size_t bytes_used;
    uint32_t sequence;
    /// Capture time in nanoseconds (the buffer's timestamp).
    uint64_t timestamp_ns;
    /// Non-zero when the frame is damaged (FrameError) or was cancelled.
    int failed;
} lector_lc_frame;

/// Results of lector_lc_next.
enum { LECTOR_LC_TIMEOUT = 0, LECTOR_LC_FRAME = 1, LECTOR_LC_LOST = -1 };

/// The libcamera version string (as the library reports it).
const char *lector_lc_version(void);

/// Writes the ids of every camera libcamera knows, one per line, into `out` (cut at
/// `size`, always terminated). Returns the number of cameras, or -1 with `error` set.
int lector_lc_list(char *out, size_t size, char *error, size_t error_size);

/// Fills `info`'s id, model, rotation and location of camera `id` without configuring
/// it. Returns 0, or -1 with `error` set (no such camera, no camera manager).
int lector_lc_describe(const char *id, lector_lc_info *info, char *error, size_t error_size);

/// Opens camera `id` ("0", "1"... for the n-th camera, or a libcamera id), asks for
/// `fourcc` (0: the best Lector reads) and `width`x`height` (0: the camera's choice),
/// `fps` (0: the camera's), with `buffers` buffers; maps them, starts, queues all.
/// Returns NULL with `error` set on failure.
lector_lc_camera *lector_lc_open(const char *id, uint32_t fourcc, unsigned width, unsigned height,
                                 double fps, unsigned buffers, lector_lc_info *info,
                                 char *error, size_t error_size);

/// Waits up to `timeout_ms` for a completed request. LECTOR_LC_FRAME fills `frame`
/// (the request is the caller's until requeued); LECTOR_LC_LOST: the camera is gone.
int lector_lc_next(lector_lc_camera *camera, int timeout_ms, lector_lc_frame *frame);

/// The mapped bytes of buffer `index` (all planes, contiguous); `length` its size.
const void *lector_lc_buffer(lector_lc_camera *camera, int index, size_t *length);

/// Queues request `index` again. Returns 0, or a negative errno (-ENODEV once stopped).
int lector_lc_requeue(lector_lc_camera *camera, int index);

/// Stops the camera: no request completes or is queued after it. Mappings stay.
void lector_lc_stop(lector_lc_camera *camera);

/// Stops (if needed), unmaps, frees the buffers and releases the camera. Call once,
/// when no frame borrows a buffer any more.
void lector_lc_destroy(lector_lc_camera *camera);

#ifdef __cplusplus
}
#endif

#endif
