// A network camera's stream through FFmpeg (lector_netcam.h). Every blocking call of
// libavformat runs under an interrupt callback that ends it at a deadline, when the
// owner interrupts, or when the camera stops.
#include "lector_netcam.h"

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/avutil.h>
#include <libavutil/hwcontext.h>
#include <libavutil/pixdesc.h>
#include <libavutil/time.h>
#include <libswscale/swscale.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/// How far behind real time (by the stream's own clock) the reader may fall before it
/// decodes only key frames, and how close it must be again to decode every frame.
#define BEHIND_US 1000000
#define CAUGHT_UP_US 300000

/// A hostile camera's bounds. The largest compressed picture: one byte per pixel of the
/// largest frame lectord accepts (8K UHD, FrameLimits), far above any camera's JPEG or
/// key frame (a 1080p key frame is some 100-500 kB). The most bytes a second: three such
/// pictures. The most CPU the reader may spend without handing out a picture (or an idle
/// report): a flood of garbage that parses slowly (a stream joined between key frames
/// decodes up to a key-frame interval of frames it cannot put out: seconds of CPU at
/// 1080p on a loaded core, so 5 s).
#define MAX_PICTURE_BYTES (7680 * 4320)
#define MAX_BYTES_PER_SECOND (3 * (int64_t)MAX_PICTURE_BYTES)
#define MAX_CPU_WITHOUT_PICTURE_US 5000000
/// Opening (connect, handshake, header) costs milliseconds: a flood of headers, less.
#define MAX_CPU_OPENING_US 500000
// The thread's CPU clock is a system call (CLOCK_THREAD_CPUTIME_ID has no vDSO path),
// and FFmpeg calls the interrupt callback on every poll and read: thousands of times a
// second on an 8 Mbit/s RTSP stream. Read at every call, it was a fifth of a still
// camera's reading thread (perf, 2026-12-07); read once per this much wall-clock time,
// it still bounds the CPU within a hundredth of a second.
#define CPU_CHECK_INTERVAL_US 10000

struct lector_netcam {
    AVFormatContext *format;
    AVIOContext *io;          // HTTP: opened apart, so a failure to connect is told from garbage
    AVCodecContext *decoder;  // NULL: JPEGs are handed out undecoded
    AVPacket *packet;
    AVFrame *frame;
    int stream_index;
    atomic_int interrupted;
    int64_t deadline_us;      // av_gettime_relative() after which a blocking call ends
    int read_timeout_ms;
    int (*should_stop)(void *);
    void *stop_context;
    // Catching up: the least (wall clock - stream clock) seen is "on time".
    int64_t least_offset_us;
    int has_offset;
    int64_t late_us;          // of the last packet read
    int behind;
    int sent_behind;          // packets sent to the decoder since its last frame, while behind
    int discarded;
    // Idle (the scene is still): key frames only; see lector_netcam_options.is_idle.
    int (*is_idle)(void *);
    void *idle_context;
    int idling;
    int idled;                // packets not decoded (JPEGs not handed out) since the last return
    int64_t last_out_us;      // when the last picture or idle report went out
    // Bounds (HTTP: bytes counted on camera->io; every protocol: the thread's CPU time).
    int64_t picture_start_bytes;
    int64_t second_start_bytes, second_start_us;
    int64_t cpu_mark_us;      // thread CPU time when the last picture went out
    int64_t cpu_checked_us;   // av_gettime_relative() when the CPU bound was last checked
    pthread_t cpu_thread;     // whose: the first picture is read on another thread than the rest
    int flooded;              // set by the interrupt callback: a bound was passed
    int opened;               // lector_netcam_open returned the handle
    char hardware_status[160];  // see lector_netcam_hardware
};

static int64_t thread_cpu_us(void) {
    struct timespec now;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now) != 0) return 0;
    return (int64_t)now.tv_sec * 1000000 + now.tv_nsec / 1000;
}

static void mark_cpu(struct lector_netcam *camera) {
    camera->cpu_thread = pthread_self();
    camera->cpu_mark_us = thread_cpu_us();
}

/// Whether the camera passed a bound (the interrupt callback's part): a picture larger
/// than MAX_PICTURE_BYTES, more than MAX_BYTES_PER_SECOND, or MAX_CPU_WITHOUT_PICTURE_US
/// of CPU without a picture.
static int floods(struct lector_netcam *camera, int64_t now) {
    if (camera->flooded) return 1;
    if (!pthread_equal(camera->cpu_thread, pthread_self())) mark_cpu(camera);
    if (now - camera->cpu_checked_us >= CPU_CHECK_INTERVAL_US) {
        camera->cpu_checked_us = now;
        int64_t budget = camera->opened ? MAX_CPU_WITHOUT_PICTURE_US : MAX_CPU_OPENING_US;
        if (thread_cpu_us() - camera->cpu_mark_us > budget) camera->flooded = 1;
    }
    if (camera->io) {
        int64_t bytes = camera->io->bytes_read;
        if (bytes - camera->picture_start_bytes > MAX_PICTURE_BYTES) camera->flooded = 1;
        if (now - camera->second_start_us >= 1000000) {
            camera->second_start_us = now;
            camera->second_start_bytes = bytes;
        } else if (bytes - camera->second_start_bytes > MAX_BYTES_PER_SECOND) {
            camera->flooded = 1;
        }
    }
    return camera->flooded;
}

/// A picture (or an idle report) went out: the bounds count afresh.
static void mark_out(struct lector_netcam *camera) {
    mark_cpu(camera);
    camera->last_out_us = av_gettime_relative();
    if (camera->io) camera->picture_start_bytes = camera->io->bytes_read;
}

static int interrupt_callback(void *opaque) {
    struct lector_netcam *camera = opaque;
    if (atomic_load(&camera->interrupted)) return 1;
    if (camera->should_stop && camera->should_stop(camera->stop_context)) return 1;
    int64_t now = av_gettime_relative();
    if (floods(camera, now)) return 1;
    return now > camera->deadline_us;
}

static void describe(int code, char *detail, size_t capacity) {
    if (!detail || capacity == 0) return;
    if (av_strerror(code, detail, capacity) < 0) snprintf(detail, capacity, "error %d", code);
}

/// The fault an FFmpeg error code means, given whether the call was stopped on purpose.
static lector_netcam_fault fault_of(struct lector_netcam *camera, int code) {
    if (camera->flooded) return LECTOR_NETCAM_FLOOD;
    if (code == AVERROR_EXIT) {
        if (atomic_load(&camera->interrupted)) return LECTOR_NETCAM_STOPPED;
        if (camera->should_stop && camera->should_stop(camera->stop_context)) return LECTOR_NETCAM_STOPPED;
        return LECTOR_NETCAM_TIMEOUT;
    }
    switch (code) {
    case AVERROR(ECONNREFUSED): return LECTOR_NETCAM_REFUSED;
    case AVERROR(ETIMEDOUT): return LECTOR_NETCAM_TIMEOUT;
    case AVERROR(EHOSTUNREACH): case AVERROR(ENETUNREACH): case AVERROR(EADDRNOTAVAIL):
        return LECTOR_NETCAM_UNREACHABLE;
    case AVERROR(EIO): case AVERROR(ECONNRESET): case AVERROR(EPIPE): case AVERROR_EOF:
        return LECTOR_NETCAM_ENDED;
    case AVERROR(EAFNOSUPPORT): return LECTOR_NETCAM_NO_NETWORK;
    case AVERROR(EPERM): return LECTOR_NETCAM_BLOCKED;  // connect() refused by the system
    case AVERROR_HTTP_UNAUTHORIZED: case AVERROR(EACCES):  // EACCES: FFmpeg's RTSP 401
        return LECTOR_NETCAM_UNAUTHORIZED;
    case AVERROR_HTTP_FORBIDDEN: return LECTOR_NETCAM_FORBIDDEN;
    case AVERROR_HTTP_NOT_FOUND: case AVERROR_STREAM_NOT_FOUND: return LECTOR_NETCAM_NOT_FOUND;
    case AVERROR_INVALIDDATA: case AVERROR_HTTP_BAD_REQUEST: case AVERROR_HTTP_OTHER_4XX:
    case AVERROR_HTTP_SERVER_ERROR: case AVERROR_PATCHWELCOME:
        return LECTOR_NETCAM_GARBAGE;
    case AVERROR_DECODER_NOT_FOUND: return LECTOR_NETCAM_UNSUPPORTED;
    default: return LECTOR_NETCAM_OTHER;
    }
}

void lector_netcam_quiet_logs(void) { av_log_set_level(AV_LOG_QUIET); }

static void arm(struct lector_netcam *camera, int milliseconds) {
    camera->deadline_us = av_gettime_relative() + (int64_t)milliseconds * 1000;
}

static lector_netcam_fault fail(struct lector_netcam *camera, int code, char *detail, size_t capacity) {
    if (camera->flooded) {
        if (detail && capacity) detail[0] = 0;
        return LECTOR_NETCAM_FLOOD;
    }
    describe(code, detail, capacity);
    return fault_of(camera, code);
}

/// Opens `codec` for `stream` (with `device`, a hardware device, when given).
static int open_decoder(struct lector_netcam *camera, AVStream *stream, const AVCodec *codec, AVBufferRef *device) {
    camera->decoder = avcodec_alloc_context3(codec);
    if (!camera->decoder) return AVERROR(ENOMEM);
    int code = avcodec_parameters_to_context(camera->decoder, stream->codecpar);
    if (code < 0) return code;
    // One thread, no frame delay: a frame goes out as soon as its packet is decoded.
    camera->decoder->thread_count = 1;
    camera->decoder->flags |= AV_CODEC_FLAG_LOW_DELAY;
    camera->decoder->pkt_timebase = stream->time_base;
    if (device) camera->decoder->hw_device_ctx = av_buffer_ref(device);
    return avcodec_open2(camera->decoder, codec, NULL);
}

/// Hardware decoding (`hwdecode`): `name` is a decoder (h264_v4l2m2m: the Raspberry Pi's
/// V4L2 memory-to-memory block) or a device type (vaapi: the stream's own decoder with
/// that device). 0 when it opened; else the decoder is freed, `hardware_status` says
/// why, and the caller opens the software decoder.
static int open_hardware(struct lector_netcam *camera, AVStream *stream, const char *name) {
    const AVCodec *codec = NULL;
    AVBufferRef *device = NULL;
    int code = AVERROR_DECODER_NOT_FOUND;
    enum AVHWDeviceType type = av_hwdevice_find_type_by_name(name);
    if (type != AV_HWDEVICE_TYPE_NONE) {
        codec = avcodec_find_decoder(stream->codecpar->codec_id);
        code = codec ? av_hwdevice_ctx_create(&device, type, NULL, NULL, 0) : code;
    } else {
        codec = avcodec_find_decoder_by_name(name);
        if (codec && codec->id != stream->codecpar->codec_id) codec = NULL;
        code = codec ? 0 : code;
    }
    if (code >= 0) code = open_decoder(camera, stream, codec, device);
    av_buffer_unref(&device);
    if (code >= 0) {
        snprintf(camera->hardware_status, sizeof camera->hardware_status, "%s", name);
        return 0;
    }
    char reason[128];
    describe(code, reason, sizeof reason);
    snprintf(camera->hardware_status, sizeof camera->hardware_status, "-%s: %s", name, reason);
    avcodec_free_context(&camera->decoder);
    return code;
}

/// Tries each name of the comma-separated `names` in turn; 0 when one opened.
static int open_hardware_list(struct lector_netcam *camera, AVStream *stream, const char *names) {
    char list[256], failures[160] = "";
    snprintf(list, sizeof list, "%s", names);
    char *rest = NULL;
    for (char *name = strtok_r(list, ",", &rest); name; name = strtok_r(NULL, ",", &rest)) {
        if (open_hardware(camera, stream, name) == 0) return 0;
        size_t used = strlen(failures);
        snprintf(failures + used, sizeof failures - used, "%s%s", used ? "; " : "", camera->hardware_status + 1);
    }
    snprintf(camera->hardware_status, sizeof camera->hardware_status, "-%s", failures);
    return -1;
}

const char *lector_netcam_hardware(const lector_netcam *camera) { return camera->hardware_status; }

int lector_netcam_has_decoder(const char *name) {
    return avcodec_find_decoder_by_name(name) != NULL || av_hwdevice_find_type_by_name(name) != AV_HWDEVICE_TYPE_NONE;
}

lector_netcam_fault lector_netcam_open(const char *url, const lector_netcam_options *options, lector_netcam **out,
                                       char *detail, size_t capacity) {
    *out = NULL;
    if (detail && capacity) detail[0] = 0;
    struct lector_netcam *camera = av_mallocz(sizeof *camera);
    if (!camera) {
        describe(AVERROR(ENOMEM), detail, capacity);
        return LECTOR_NETCAM_OTHER;
    }
    camera->read_timeout_ms = options->read_timeout_ms;
    camera->should_stop = options->should_stop;
    camera->stop_context = options->stop_context;
    camera->is_idle = options->is_idle;
    camera->idle_context = options->idle_context;
    camera->stream_index = -1;
    mark_cpu(camera);
    camera->second_start_us = av_gettime_relative();
    camera->format = avformat_alloc_context();
    camera->packet = av_packet_alloc();
    camera->frame = av_frame_alloc();
    if (!camera->format || !camera->packet || !camera->frame) {
        lector_netcam_close(camera);
        describe(AVERROR(ENOMEM), detail, capacity);
        return LECTOR_NETCAM_OTHER;
    }
    camera->format->interrupt_callback.callback = interrupt_callback;
    camera->format->interrupt_callback.opaque = camera;
    // Newest first: no buffering or reordering ahead of the reader.
    camera->format->flags |= AVFMT_FLAG_NOBUFFER;
    AVDictionary *settings = NULL;
    if (options->rtsp_transport) av_dict_set(&settings, "rtsp_transport", options->rtsp_transport, 0);
    av_dict_set(&settings, "max_delay", "200000", 0);
    av_dict_set(&settings, "user_agent", "Lector", 0);
    arm(camera, options->open_timeout_ms);
    int code = 0;
    if (strncmp(url, "rtsp", 4) != 0) {  // the scheme comes in lower case (NetworkCameraURL)
        AVDictionary *io_settings = NULL;
        av_dict_set(&io_settings, "user_agent", "Lector", 0);
        code = avio_open2(&camera->io, url, AVIO_FLAG_READ, &camera->format->interrupt_callback, &io_settings);
        av_dict_free(&io_settings);
        if (code < 0) {
            av_dict_free(&settings);
            lector_netcam_fault fault = fail(camera, code, detail, capacity);
            // Nothing connected yet: an I/O error is a host that cannot be resolved or reached.
            if (fault == LECTOR_NETCAM_ENDED && code != AVERROR_EOF) fault = LECTOR_NETCAM_UNREACHABLE;
            lector_netcam_close(camera);
            return fault;
        }
        camera->format->pb = camera->io;
    }
    code = avformat_open_input(&camera->format, url, NULL, &settings);
    av_dict_free(&settings);
    if (code < 0) {
        lector_netcam_fault fault = fail(camera, code, detail, capacity);
        if (camera->io) {
            // Connected, but what came is no stream FFmpeg knows.
            if (fault == LECTOR_NETCAM_ENDED || fault == LECTOR_NETCAM_OTHER) fault = LECTOR_NETCAM_GARBAGE;
            // EPERM after the reply came: a playlist (ffconcat, HLS) naming files or URLs
            // that FFmpeg refuses to follow from a network reply, not a blocked connection.
            if (fault == LECTOR_NETCAM_BLOCKED) fault = LECTOR_NETCAM_PLAYLIST;
        } else if (fault == LECTOR_NETCAM_ENDED && code != AVERROR_EOF) {
            fault = LECTOR_NETCAM_UNREACHABLE;  // RTSP: a host that cannot be resolved or reached
        }
        camera->format = NULL;  // freed by avformat_open_input on failure
        lector_netcam_close(camera);
        return fault;
    }
    const AVCodec *codec = NULL;
    code = av_find_best_stream(camera->format, AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0);
    if (code < 0) {
        lector_netcam_fault fault = code == AVERROR_DECODER_NOT_FOUND ? LECTOR_NETCAM_UNSUPPORTED : LECTOR_NETCAM_NO_VIDEO;
        describe(code, detail, capacity);
        lector_netcam_close(camera);
        return fault;
    }
    camera->stream_index = code;
    AVStream *stream = camera->format->streams[code];
    for (unsigned index = 0; index < camera->format->nb_streams; index++) {
        if ((int)index != code) camera->format->streams[index]->discard = AVDISCARD_ALL;
    }
    camera->opened = 1;
    mark_out(camera);
    if (stream->codecpar->codec_id == AV_CODEC_ID_MJPEG) {
        *out = camera;  // JPEGs go out as they came: the recognizer decodes the one it reads
        return LECTOR_NETCAM_OK;
    }
    const char *hardware = stream->codecpar->codec_id == AV_CODEC_ID_H264   ? options->hw_h264
                           : stream->codecpar->codec_id == AV_CODEC_ID_HEVC ? options->hw_hevc
                                                                            : NULL;
    if (hardware && hardware[0] && open_hardware_list(camera, stream, hardware) == 0) {
        *out = camera;
        return LECTOR_NETCAM_OK;
    }
    if ((code = open_decoder(camera, stream, codec, NULL)) < 0) {
        describe(code, detail, capacity);
        lector_netcam_close(camera);
        return code == AVERROR(ENOMEM) ? LECTOR_NETCAM_OTHER : LECTOR_NETCAM_UNSUPPORTED;
    }
    *out = camera;
    return LECTOR_NETCAM_OK;
}

/// Catching up, from a packet's time: once the stream is more than BEHIND_US behind
/// real time (by its own clock), the decoder decodes key frames only (it still parses
/// the others, which is cheap); see caught_up for the way back.
static void track_lateness(struct lector_netcam *camera, const AVPacket *packet) {
    if (packet->pts == AV_NOPTS_VALUE || !camera->decoder) return;
    AVRational base = camera->format->streams[camera->stream_index]->time_base;
    int64_t offset = av_gettime_relative() - av_rescale_q(packet->pts, base, AV_TIME_BASE_Q);
    if (!camera->has_offset || offset < camera->least_offset_us) {
        camera->least_offset_us = offset;
        camera->has_offset = 1;
    }
    camera->late_us = offset - camera->least_offset_us;
    if (!camera->behind && camera->late_us > BEHIND_US) {
        camera->behind = 1;
        camera->decoder->skip_frame = AVDISCARD_NONKEY;
    }
}

/// A frame came out of the decoder: while behind, a key frame. Once it is back within
/// CAUGHT_UP_US, every frame is decoded again from here (the next frames refer to this
/// key frame, so nothing is decoded from a missing reference). Counts the packets
/// given up on the way.
static void caught_up(struct lector_netcam *camera) {
    if (!camera->behind) return;
    if (camera->sent_behind > 1) camera->discarded += camera->sent_behind - 1;
    camera->sent_behind = 0;
    if (camera->late_us < CAUGHT_UP_US) {
        camera->behind = 0;
        camera->decoder->skip_frame = camera->idling ? AVDISCARD_NONKEY : AVDISCARD_DEFAULT;
    }
}

static void hand_out_jpeg(struct lector_netcam *camera, lector_netcam_picture *picture) {
    AVPacket *kept = av_packet_alloc();
    av_packet_move_ref(kept, camera->packet);
    picture->is_jpeg = 1;
    picture->data = kept->data;
    picture->size = (size_t)kept->size;
    picture->owner = kept;
}

static void hand_out_frame(struct lector_netcam *camera, lector_netcam_picture *picture) {
    AVFrame *kept = av_frame_alloc();
    if (camera->frame->hw_frames_ctx) {  // VAAPI: the frame is in the device's memory
        if (av_hwframe_transfer_data(kept, camera->frame, 0) == 0) av_frame_copy_props(kept, camera->frame);
        av_frame_unref(camera->frame);
    } else {
        av_frame_move_ref(kept, camera->frame);
    }
    picture->is_jpeg = 0;
    picture->data = kept->data[0];
    picture->width = kept->width;
    picture->height = kept->height;
    picture->linesize = kept->linesize[0];
    picture->size = (size_t)kept->linesize[0] * (size_t)kept->height;
    picture->owner = kept;
}

/// Idle (the scene is still): the decoder decodes key frames only. Back to every
/// frame once the owner says the scene moves: right after a key frame came out (the
/// frames that follow refer to it), unless the stream is behind (track_lateness).
static void follow_idle(struct lector_netcam *camera) {
    int idle = camera->is_idle && camera->is_idle(camera->idle_context);
    if (idle && !camera->idling) {
        camera->idling = 1;
        if (camera->decoder) camera->decoder->skip_frame = AVDISCARD_NONKEY;
    } else if (!idle && camera->idling && !camera->decoder) {
        camera->idling = 0;  // JPEGs stand alone: every one again at once
    }
}

/// A frame came out of the decoder while idling (a key frame): every frame again from
/// here if the scene moves now.
static void woke_on_key_frame(struct lector_netcam *camera) {
    if (!camera->idling || (camera->is_idle && camera->is_idle(camera->idle_context))) return;
    camera->idling = 0;
    if (!camera->behind) camera->decoder->skip_frame = AVDISCARD_DEFAULT;
}

/// While idle: whether it is time to tell the owner what was read and not decoded, so
/// it sees a live stream between key frames (which may be seconds apart).
static int report_due(struct lector_netcam *camera) {
    if (!camera->idling || camera->idled == 0) return 0;
    return av_gettime_relative() - camera->last_out_us >= LECTOR_NETCAM_IDLE_REPORT_MS * 1000;
}

/// Idle JPEGs: whether this one is skipped (one per LECTOR_NETCAM_IDLE_JPEG_MS goes out).
static int skips_idle_jpeg(struct lector_netcam *camera) {
    return camera->idling && av_gettime_relative() - camera->last_out_us < LECTOR_NETCAM_IDLE_JPEG_MS * 1000;
}

static lector_netcam_fault hand_out(struct lector_netcam *camera, lector_netcam_picture *picture, int *discarded) {
    picture->idled = camera->idled;
    camera->idled = 0;
    *discarded = camera->discarded;
    camera->discarded = 0;
    mark_out(camera);
    return LECTOR_NETCAM_OK;
}

lector_netcam_fault lector_netcam_next(lector_netcam *camera, lector_netcam_picture *picture, int *discarded,
                                       char *detail, size_t capacity) {
    memset(picture, 0, sizeof *picture);
    if (detail && capacity) detail[0] = 0;
    *discarded = 0;
    for (;;) {
        if (camera->decoder) {
            int code = avcodec_receive_frame(camera->decoder, camera->frame);
            if (code == 0) {
                if (camera->idling && camera->idled > 0) camera->idled--;  // this one was decoded
                caught_up(camera);
                woke_on_key_frame(camera);
                hand_out_frame(camera, picture);
                return hand_out(camera, picture, discarded);
            }
            if (code != AVERROR(EAGAIN)) return fail(camera, code == AVERROR_EOF ? AVERROR_EOF : code, detail, capacity);
        }
        if (report_due(camera)) return hand_out(camera, picture, discarded);  // no picture: owner stays NULL
        follow_idle(camera);
        arm(camera, camera->read_timeout_ms);
        int code = av_read_frame(camera->format, camera->packet);
        if (code < 0) return fail(camera, code, detail, capacity);
        if (camera->packet->stream_index != camera->stream_index) {
            av_packet_unref(camera->packet);
            continue;
        }
        track_lateness(camera, camera->packet);
        if (!camera->decoder) {
            if (skips_idle_jpeg(camera)) {
                av_packet_unref(camera->packet);
                camera->idled++;
                continue;
            }
            hand_out_jpeg(camera, picture);
            return hand_out(camera, picture, discarded);
        }
        if (camera->behind) camera->sent_behind++;
        else if (camera->idling) camera->idled++;  // a key frame decoded counts too: taken back when it comes out
        code = avcodec_send_packet(camera->decoder, camera->packet);
        av_packet_unref(camera->packet);
        // A damaged packet is the stream's loss, not the camera's: go on with the next.
        if (code < 0 && code != AVERROR(EAGAIN) && code != AVERROR_INVALIDDATA) return fail(camera, code, detail, capacity);
    }
}

/// Whether plane 0 of `format` is 8-bit luma, one byte a pixel (YUV planar, NV12, gray).
static int has_luma_plane(enum AVPixelFormat format) {
    const AVPixFmtDescriptor *descriptor = av_pix_fmt_desc_get(format);
    if (!descriptor) return 0;
    if (descriptor->flags & (AV_PIX_FMT_FLAG_RGB | AV_PIX_FMT_FLAG_PAL | AV_PIX_FMT_FLAG_BITSTREAM)) return 0;
    return descriptor->comp[0].plane == 0 && descriptor->comp[0].depth == 8 && descriptor->comp[0].step == 1;
}

int lector_netcam_picture_make_gray(lector_netcam_picture *picture) {
    if (picture->is_jpeg || !picture->owner) return 0;
    AVFrame *frame = picture->owner;
    if (has_luma_plane(frame->format)) return 0;
    AVFrame *gray = av_frame_alloc();
    if (!gray) return AVERROR(ENOMEM);
    gray->format = AV_PIX_FMT_GRAY8;
    gray->width = frame->width;
    gray->height = frame->height;
    int code = av_frame_get_buffer(gray, 0);
    struct SwsContext *scale = code < 0 ? NULL : sws_getContext(frame->width, frame->height, frame->format, gray->width, gray->height,
                                                                AV_PIX_FMT_GRAY8, SWS_POINT, NULL, NULL, NULL);
    if (!scale) {
        av_frame_free(&gray);
        return code < 0 ? code : AVERROR(EINVAL);
    }
    sws_scale(scale, (const uint8_t *const *)frame->data, frame->linesize, 0, frame->height, gray->data, gray->linesize);
    sws_freeContext(scale);
    av_frame_free(&frame);
    picture->owner = gray;
    picture->data = gray->data[0];
    picture->linesize = gray->linesize[0];
    picture->size = (size_t)gray->linesize[0] * (size_t)gray->height;
    return 0;
}

void lector_netcam_picture_release(lector_netcam_picture *picture) {
    if (!picture->owner) return;
    if (picture->is_jpeg) {
        AVPacket *packet = picture->owner;
        av_packet_free(&packet);
    } else {
        AVFrame *frame = picture->owner;
        av_frame_free(&frame);
    }
    picture->owner = NULL;
    picture->data = NULL;
}

const char *lector_netcam_format_name(const lector_netcam *camera) {
    return camera->format && camera->format->iformat ? camera->format->iformat->name : "";
}

const char *lector_netcam_codec_name(const lector_netcam *camera) {
    if (camera->stream_index < 0) return "";
    return avcodec_get_name(camera->format->streams[camera->stream_index]->codecpar->codec_id);
}

int lector_netcam_is_single_image(const lector_netcam *camera) {
    const char *name = lector_netcam_format_name(camera);
    size_t length = strlen(name);
    return strcmp(name, "image2") == 0 || (length > 5 && strcmp(name + length - 5, "_pipe") == 0);
}

double lector_netcam_frame_rate(const lector_netcam *camera) {
    if (camera->stream_index < 0) return 0;
    AVRational rate = camera->format->streams[camera->stream_index]->avg_frame_rate;
    if (rate.num <= 0 || rate.den <= 0) rate = camera->format->streams[camera->stream_index]->r_frame_rate;
    // RTSP's SDP seldom says; H.264's timing information, read with the first frame, may.
    if ((rate.num <= 0 || rate.den <= 0) && camera->decoder) rate = camera->decoder->framerate;
    return rate.num > 0 && rate.den > 0 ? av_q2d(rate) : 0;
}

void lector_netcam_interrupt(lector_netcam *camera) { atomic_store(&camera->interrupted, 1); }

void lector_netcam_close(lector_netcam *camera) {
    if (!camera) return;
    if (camera->decoder) avcodec_free_context(&camera->decoder);
    if (camera->format) {
        arm(camera, 1000);  // a polite teardown (RTSP TEARDOWN) gets a second at most
        avformat_close_input(&camera->format);
    }
    if (camera->io) avio_closep(&camera->io);
    av_packet_free(&camera->packet);
    av_frame_free(&camera->frame);
    av_free(camera);
}
