// camera.cpp — Lector's libcamera capture behind a C interface (lector_libcamera.h).
//
// One process-wide CameraManager (libcamera allows one), started on first use and
// kept. A camera gets one stream, a FrameBufferAllocator's buffers mapped once
// (planes must lie one after another in one dmabuf, as NV12/YUV420 do), one request
// per buffer. libcamera's thread moves completed requests to a queue; the capture
// thread takes them with lector_lc_next and gives them back with lector_lc_requeue.
#include "lector_libcamera.h"

#include <libcamera/libcamera.h>

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

using namespace libcamera;

namespace {

constexpr uint32_t fourcc(char a, char b, char c, char d) {
    return uint32_t(uint8_t(a)) | uint32_t(uint8_t(b)) << 8 | uint32_t(uint8_t(c)) << 16 | uint32_t(uint8_t(d)) << 24;
}

/// The formats Lector reads, best first, as V4L2 fourccs and libcamera formats.
struct FormatPair { uint32_t v4l2; PixelFormat libcamera; };
const std::vector<FormatPair> &formatTable() {
    static const std::vector<FormatPair> table = {
        {fourcc('G', 'R', 'E', 'Y'), formats::R8},
        {fourcc('N', 'V', '1', '2'), formats::NV12},
        {fourcc('Y', 'U', '1', '2'), formats::YUV420},
        {fourcc('M', 'J', 'P', 'G'), formats::MJPEG},
    };
    return table;
}

uint32_t v4l2Of(const PixelFormat &format) {
    for (const auto &pair : formatTable())
        if (pair.libcamera == format) return pair.v4l2;
    return 0;
}

void setError(char *error, size_t size, const std::string &message) {
    if (error && size) std::snprintf(error, size, "%s", message.c_str());
}

std::mutex managerLock;
CameraManager *sharedManager = nullptr;

/// The process's CameraManager, started once. Null with `message` set when it fails.
CameraManager *manager(std::string &message) {
    std::lock_guard<std::mutex> lock(managerLock);
    if (sharedManager) return sharedManager;
    // libcamera logs every configuration at INFO; keep warnings and errors unless
    // the user asked for more through LIBCAMERA_LOG_LEVELS.
    if (!std::getenv("LIBCAMERA_LOG_LEVELS")) logSetLevel("*", "WARN");
    auto made = new CameraManager();
    int status = made->start();
    if (status < 0) {
        delete made;
        message = std::string("libcamera's camera manager did not start: ") + std::strerror(-status);
        return nullptr;
    }
    sharedManager = made;
    return made;
}

/// `id` as the n-th camera ("0") or as libcamera's own id.
std::shared_ptr<Camera> find(CameraManager *cm, const std::string &id) {
    auto cameras = cm->cameras();
    if (!id.empty() && std::all_of(id.begin(), id.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        size_t n = std::stoul(id);
        if (n < cameras.size()) return cameras[n];
    }
    return cm->get(id);
}

}  // namespace

struct lector_lc_camera {
    std::shared_ptr<Camera> camera;
    std::unique_ptr<CameraConfiguration> config;
    std::unique_ptr<FrameBufferAllocator> allocator;
    Stream *stream = nullptr;
    std::vector<std::unique_ptr<Request>> requests;
    struct Mapping { void *address; size_t length; const uint8_t *start; size_t size; };
    std::vector<Mapping> mappings;  // one per buffer
    bool acquired = false;

    std::mutex lock;
    std::condition_variable ready;
    std::deque<Request *> completed;
    bool started = false;
    bool lost = false;

    void onCompleted(Request *request) {
        std::lock_guard<std::mutex> guard(lock);
        if (!started) return;
        completed.push_back(request);
        ready.notify_one();
    }

    void onDisconnected() {
        std::lock_guard<std::mutex> guard(lock);
        lost = true;
        ready.notify_all();
    }
};

extern "C" const char *lector_lc_version(void) {
    static std::string version;
    std::string message;
    if (version.empty()) {
        if (CameraManager *cm = manager(message)) version = cm->version();
    }
    return version.c_str();
}

extern "C" int lector_lc_list(char *out, size_t size, char *error, size_t error_size) {
    std::string message;
    CameraManager *cm = manager(message);
    if (!cm) { setError(error, error_size, message); return -1; }
    std::string ids;
    auto cameras = cm->cameras();
    for (const auto &camera : cameras) ids += camera->id() + "\n";
    if (out && size) std::snprintf(out, size, "%s", ids.c_str());
    return int(cameras.size());
}

/// What a camera says about itself (id, model, mounting), into `info`.
static void describe(Camera &camera, lector_lc_info *info) {
    const ControlList &props = camera.properties();
    auto rotation = props.get(properties::Rotation);
    info->rotation = rotation ? *rotation : -1;
    auto location = props.get(properties::Location);
    info->location = location ? *location : -1;
    auto model = props.get(properties::Model);
    std::snprintf(info->model, sizeof(info->model), "%s", model ? model->c_str() : "");
    std::snprintf(info->id, sizeof(info->id), "%s", camera.id().c_str());
}

static std::string unknownCamera(CameraManager *cm, const char *id) {
    std::string known;
    for (const auto &camera : cm->cameras()) known += (known.empty() ? "" : ", ") + camera->id();
    return std::string("no libcamera camera '") + (id ? id : "") + "' (cameras: " + (known.empty() ? "none" : known) + ")";
}

extern "C" int lector_lc_describe(const char *id, lector_lc_info *info, char *error, size_t error_size) {
    std::string message;
    CameraManager *cm = manager(message);
    if (!cm) { setError(error, error_size, message); return -1; }
    std::shared_ptr<Camera> camera = find(cm, id ? id : "");
    if (!camera) { setError(error, error_size, unknownCamera(cm, id)); return -1; }
    std::memset(info, 0, sizeof(*info));
    describe(*camera, info);
    return 0;
}

static void release(lector_lc_camera *c) {
    for (auto &m : c->mappings) if (m.address && m.address != MAP_FAILED) munmap(m.address, m.length);
    c->mappings.clear();
    c->requests.clear();
    if (c->allocator && c->stream) c->allocator->free(c->stream);
    c->allocator.reset();
    if (c->camera) {
        c->camera->requestCompleted.disconnect(c);
        c->camera->disconnected.disconnect(c);
        if (c->acquired) c->camera->release();
    }
    c->camera.reset();
}

extern "C" lector_lc_camera *lector_lc_open(const char *id, uint32_t wanted, unsigned width, unsigned height,
                                            double fps, unsigned buffers, lector_lc_info *info,
                                            char *error, size_t error_size) {
    std::string message;
    CameraManager *cm = manager(message);
    if (!cm) { setError(error, error_size, message); return nullptr; }
    auto c = std::make_unique<lector_lc_camera>();
    c->camera = find(cm, id ? id : "");
    if (!c->camera) { setError(error, error_size, unknownCamera(cm, id)); return nullptr; }
    auto fail = [&](const std::string &why) -> lector_lc_camera * {
        setError(error, error_size, why);
        release(c.get());
        return nullptr;
    };
    if (c->camera->acquire() < 0) return fail("camera " + c->camera->id() + " is in use by another process or user");
    c->acquired = true;
    c->camera->requestCompleted.connect(c.get(), &lector_lc_camera::onCompleted);
    c->camera->disconnected.connect(c.get(), &lector_lc_camera::onDisconnected);

    c->config = c->camera->generateConfiguration({StreamRole::Viewfinder});
    if (!c->config || c->config->empty()) return fail("camera " + c->camera->id() + " offers no viewfinder stream");
    StreamConfiguration &sc = c->config->at(0);
    std::vector<PixelFormat> offered = sc.formats().pixelformats();
    PixelFormat chosen;
    for (const auto &pair : formatTable()) {
        bool isOffered = std::find(offered.begin(), offered.end(), pair.libcamera) != offered.end();
        if (wanted ? pair.v4l2 == wanted : isOffered) { chosen = pair.libcamera; break; }
    }
    if (!chosen.isValid()) {
        std::string names;
        for (const auto &f : offered) names += (names.empty() ? "" : ", ") + f.toString();
        return fail(wanted ? "this format is not one Lector reads from libcamera (NV12, YUV420, MJPEG, GREY)"
                           : "camera " + c->camera->id() + " offers none of NV12, YUV420, MJPEG, GREY (it offers " + names + ")");
    }
    sc.pixelFormat = chosen;
    if (width && height) sc.size = Size(width, height);
    if (buffers) sc.bufferCount = buffers;
    if (c->config->validate() == CameraConfiguration::Invalid) return fail("libcamera refused the configuration " + sc.toString());
    if (v4l2Of(sc.pixelFormat) == 0) return fail("libcamera adjusted the format to " + sc.pixelFormat.toString() + ", which Lector does not read");
    if (wanted && v4l2Of(sc.pixelFormat) != wanted) return fail("the camera does not offer the asked format (it would give " + sc.pixelFormat.toString() + ")");
    if (c->camera->configure(c->config.get()) < 0) return fail("libcamera could not configure " + sc.toString());
    c->stream = sc.stream();

    c->allocator = std::make_unique<FrameBufferAllocator>(c->camera);
    if (c->allocator->allocate(c->stream) < 0) return fail("libcamera could not allocate buffers (no dma-heap or udmabuf?)");
    const auto &frameBuffers = c->allocator->buffers(c->stream);
    for (size_t i = 0; i < frameBuffers.size(); i++) {
        FrameBuffer *buffer = frameBuffers[i].get();
        const auto &planes = buffer->planes();
        // Planes one after another in one dmabuf: map it once, lend the span.
        int fd = planes[0].fd.get();
        size_t begin = planes[0].offset, end = planes[0].offset + planes[0].length;
        for (size_t p = 1; p < planes.size(); p++) {
            if (planes[p].fd.get() != fd || planes[p].offset != end)
                return fail("the camera's planes are not contiguous in one buffer");
            end = planes[p].offset + planes[p].length;
        }
        off_t whole = lseek(fd, 0, SEEK_END);
        size_t length = whole > 0 ? size_t(whole) : end;
        void *address = mmap(nullptr, length, PROT_READ, MAP_SHARED, fd, 0);
        if (address == MAP_FAILED) return fail(std::string("mapping a libcamera buffer failed: ") + std::strerror(errno));
        c->mappings.push_back({address, length, static_cast<const uint8_t *>(address) + begin, end - begin});
        std::unique_ptr<Request> request = c->camera->createRequest(i);
        if (!request || request->addBuffer(c->stream, buffer) < 0) return fail("libcamera could not make a request");
        c->requests.push_back(std::move(request));
    }

    std::unique_ptr<ControlList> controls;
    if (fps > 0) {
        controls = std::make_unique<ControlList>(controls::controls);
        int64_t duration = int64_t(1e6 / fps);
        controls->set(controls::FrameDurationLimits, Span<const int64_t, 2>({duration, duration}));
    }
    {
        std::lock_guard<std::mutex> guard(c->lock);
        c->started = true;
    }
    if (c->camera->start(controls.get()) < 0) {
        c->started = false;
        return fail("libcamera could not start camera " + c->camera->id());
    }
    for (auto &request : c->requests) {
        if (c->camera->queueRequest(request.get()) < 0) {
            lector_lc_stop(c.get());
            return fail("libcamera refused a request");
        }
    }

    if (info) {
        std::memset(info, 0, sizeof(*info));
        info->fourcc = v4l2Of(sc.pixelFormat);
        info->width = sc.size.width;
        info->height = sc.size.height;
        info->stride = sc.pixelFormat == formats::MJPEG ? 0 : sc.stride;
        info->buffer_count = unsigned(c->requests.size());
        describe(*c->camera, info);
        info->fps = fps > 0 ? fps : 0;
    }
    return c.release();
}

extern "C" int lector_lc_next(lector_lc_camera *c, int timeout_ms, lector_lc_frame *frame) {
    std::unique_lock<std::mutex> guard(c->lock);
    c->ready.wait_for(guard, std::chrono::milliseconds(timeout_ms), [c] { return c->lost || !c->completed.empty(); });
    if (!c->completed.empty()) {
        Request *request = c->completed.front();
        c->completed.pop_front();
        guard.unlock();
        FrameBuffer *buffer = request->findBuffer(c->stream);
        std::memset(frame, 0, sizeof(*frame));
        frame->index = int(request->cookie());
        // The request's status, not the buffer's: libcamera 0.4's virtual pipeline
        // never sets FrameMetadata (status, sequence, timestamp, bytesused stay as the
        // allocation left them); a cancelled buffer cancels its request in every pipeline.
        frame->failed = request->status() != Request::RequestComplete || !buffer;
        frame->sequence = request->sequence();
        if (auto timestamp = request->metadata().get(controls::SensorTimestamp)) frame->timestamp_ns = uint64_t(*timestamp);
        if (buffer) {
            const FrameMetadata &meta = buffer->metadata();
            if (meta.status == FrameMetadata::FrameSuccess && meta.timestamp) {
                frame->sequence = meta.sequence;
                frame->timestamp_ns = meta.timestamp;
                for (const auto &plane : meta.planes()) frame->bytes_used += plane.bytesused;
            }
        }
        return LECTOR_LC_FRAME;
    }
    return c->lost ? LECTOR_LC_LOST : LECTOR_LC_TIMEOUT;
}

extern "C" const void *lector_lc_buffer(lector_lc_camera *c, int index, size_t *length) {
    if (index < 0 || size_t(index) >= c->mappings.size()) { *length = 0; return nullptr; }
    *length = c->mappings[index].size;
    return c->mappings[index].start;
}

extern "C" int lector_lc_requeue(lector_lc_camera *c, int index) {
    if (index < 0 || size_t(index) >= c->requests.size()) return -EINVAL;
    {
        std::lock_guard<std::mutex> guard(c->lock);
        if (!c->started) return -ENODEV;
        if (c->lost) return -ENODEV;
    }
    Request *request = c->requests[index].get();
    request->reuse(Request::ReuseBuffers);
    int status = c->camera->queueRequest(request);
    return status < 0 ? status : 0;
}

extern "C" void lector_lc_stop(lector_lc_camera *c) {
    {
        std::lock_guard<std::mutex> guard(c->lock);
        if (!c->started) return;
        c->started = false;
        c->completed.clear();
    }
    c->camera->stop();  // completes the queued requests as cancelled (ignored: not started)
}

extern "C" void lector_lc_destroy(lector_lc_camera *c) {
    if (!c) return;
    lector_lc_stop(c);
    release(c);
    delete c;
}
