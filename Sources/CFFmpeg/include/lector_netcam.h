#ifndef LECTOR_NETCAM_H
#define LECTOR_NETCAM_H

#include <stddef.h>
#include <stdint.h>

/// A network camera's stream through FFmpeg's libavformat and libavcodec (RTSP, HTTP
/// MJPEG, HTTP JPEG snapshots). One reader thread owns a handle; only
/// lector_netcam_interrupt may be called from another thread.
typedef struct lector_netcam lector_netcam;

/// What the handle was opened with.
typedef struct {
    /// "tcp" or "udp" for rtsp:// and rtsps://; NULL elsewhere.
    const char *rtsp_transport;
    /// The longest one open (connect, handshake, first header) may block.
    int open_timeout_ms;
    /// The longest one read may block before it fails as a timeout.
    int read_timeout_ms;
    /// Asked by the interrupt callback during every blocking call: nonzero stops it.
    int (*should_stop)(void *context);
    void *stop_context;
    /// Asked before every packet: nonzero while the camera's scene is still (the change
    /// gate finds nothing new). Then only key frames are decoded (H.264, H.265:
    /// skip_frame = AVDISCARD_NONKEY; a JPEG stream hands out one JPEG per
    /// LECTOR_NETCAM_IDLE_JPEG_MS); every frame again from the first key frame after it
    /// turns zero. NULL: never idle.
    int (*is_idle)(void *context);
    void *idle_context;
    /// Hardware decoding of H.264 and H.265 streams (`hwdecode`): a decoder's name
    /// (h264_v4l2m2m) or a device type (vaapi); NULL or "": software. One that is missing
    /// or fails to open falls back to software (lector_netcam_hardware says why).
    const char *hw_h264;
    const char *hw_hevc;
} lector_netcam_options;

/// While idle, a JPEG stream hands out one JPEG per this many milliseconds.
#define LECTOR_NETCAM_IDLE_JPEG_MS 500
/// While idle, lector_netcam_next returns without a picture at least this often
/// (counting what it did not decode), so the owner sees a live stream between key frames
/// (which may be seconds apart).
#define LECTOR_NETCAM_IDLE_REPORT_MS 500

/// Why a call failed, in the words the camera's status uses.
typedef enum {
    LECTOR_NETCAM_OK = 0,
    LECTOR_NETCAM_REFUSED,       ///< connection refused
    LECTOR_NETCAM_UNREACHABLE,   ///< host unknown, network or host unreachable
    LECTOR_NETCAM_TIMEOUT,       ///< nothing within the time allowed
    LECTOR_NETCAM_UNAUTHORIZED,  ///< 401: wrong or missing user name or password
    LECTOR_NETCAM_FORBIDDEN,     ///< 403
    LECTOR_NETCAM_NOT_FOUND,     ///< 404: the path names no stream
    LECTOR_NETCAM_GARBAGE,       ///< the server sent something that is not the stream
    LECTOR_NETCAM_ENDED,         ///< the server closed the stream
    LECTOR_NETCAM_NO_VIDEO,      ///< the stream holds no video
    LECTOR_NETCAM_UNSUPPORTED,   ///< a codec this FFmpeg cannot decode
    LECTOR_NETCAM_STOPPED,       ///< should_stop or lector_netcam_interrupt
    LECTOR_NETCAM_NO_NETWORK,    ///< the process may not open IP sockets (EAFNOSUPPORT: a sandbox)
    LECTOR_NETCAM_BLOCKED,       ///< the system refused to connect (EPERM: a firewall, IPAddressDeny=)
    LECTOR_NETCAM_FLOOD,         ///< a picture, the bytes in a second or the CPU without a picture passed its bound
    LECTOR_NETCAM_PLAYLIST,      ///< HTTP: a playlist (ffconcat, HLS) whose entries FFmpeg will not follow
    LECTOR_NETCAM_OTHER,
} lector_netcam_fault;

/// One picture handed out by lector_netcam_next: a JPEG as it arrived (not decoded:
/// the recognizer decodes the one it takes), or the luma plane of a decoded frame
/// (no copy). Valid until lector_netcam_picture_release.
typedef struct {
    int is_jpeg;
    /// JPEG: the bytes; decoded: the first row of the luma plane.
    const uint8_t *data;
    /// JPEG: the byte count; decoded: linesize * height.
    size_t size;
    int width, height, linesize;
    /// The owner (an AVPacket or AVFrame); NULL once released, and NULL when the call
    /// handed out no picture, only `idled`.
    void *owner;
    /// Pictures not decoded (or JPEGs not handed out) since the last call because the
    /// scene is still.
    int idled;
} lector_netcam_picture;

/// Opens `url`: connects, handshakes, reads the header and opens the video decoder.
/// Returns a fault; on LECTOR_NETCAM_OK `*out` is the handle. `detail` receives
/// FFmpeg's own words for the failure (never the URL).
lector_netcam_fault lector_netcam_open(const char *url, const lector_netcam_options *options, lector_netcam **out,
                                       char *detail, size_t detail_capacity);

/// Reads packets until a picture is ready and hands it out (or, while idle, until
/// LECTOR_NETCAM_IDLE_REPORT_MS passed while idle: then `picture->owner` is NULL
/// and `idled` and `*discarded` count). `*discarded` counts the
/// pictures decoded (or JPEGs read) and given up since the last call because the
/// stream was behind (decoding key frames only while more than a second behind).
lector_netcam_fault lector_netcam_next(lector_netcam *camera, lector_netcam_picture *picture, int *discarded,
                                       char *detail, size_t detail_capacity);

/// Makes the luma plane of a decoded picture whose pixel format has no 8-bit luma
/// plane (RGB, 10-bit) into 8-bit gray, replacing it. A no-op otherwise. Returns 0 or
/// a negative AVERROR.
int lector_netcam_picture_make_gray(lector_netcam_picture *picture);

void lector_netcam_picture_release(lector_netcam_picture *picture);

/// The demuxer's name ("rtsp", "mpjpeg", "jpeg_pipe", ...), the codec's ("h264",
/// "mjpeg"), and the stream's size when known (0 otherwise).
const char *lector_netcam_format_name(const lector_netcam *camera);
const char *lector_netcam_codec_name(const lector_netcam *camera);
/// Whether the URL served one image and ended (a snapshot endpoint).
int lector_netcam_is_single_image(const lector_netcam *camera);
/// The stream's frame rate when the server or the stream says it (after the first
/// picture, the decoder may know it), else 0.
double lector_netcam_frame_rate(const lector_netcam *camera);

/// Hardware decoding: "" when not asked for, the name in use, or "-NAME: REASON" when
/// it failed to open and the stream decodes in software.
const char *lector_netcam_hardware(const lector_netcam *camera);
/// Whether this FFmpeg knows a decoder or a hardware device type of this name (it may
/// still fail to open: no such device here).
int lector_netcam_has_decoder(const char *name);

/// Makes every blocking call of `camera` return LECTOR_NETCAM_STOPPED at once, from
/// any thread.
void lector_netcam_interrupt(lector_netcam *camera);

/// Closes the connection and frees everything (a picture not released stays valid).
void lector_netcam_close(lector_netcam *camera);

/// Silences FFmpeg's own log (it may name the URL, with its credentials).
void lector_netcam_quiet_logs(void);

#endif
