#if canImport(CLibCamera)
import CLibCamera
#endif
import LectorImaging
import LectorProtocol
import LectorSystem

/// Why libcamera capture failed or is not there.
public enum LibcameraError: Error, Equatable, CustomStringConvertible {
    /// This lectord was built without libcamera support.
    case unavailable
    /// libcamera refused (no such camera, configuration, allocation): its reason.
    case failed(String)
    /// The camera disconnected while streaming.
    case disconnected
    /// A request could not be queued again (negative errno from libcamera).
    case queueFailed(Int32)

    public var description: String {
        switch self {
        case .unavailable:
            "this lectord was built without libcamera support: it needs libcamera >= 0.4 (libcamera-dev, Debian 13 or "
                + "Raspberry Pi OS trixie) when it is built; Debian 12 has only 0.0.3. Use a V4L2 node, or libcamerify with --io direct"
        case let .failed(reason): reason
        case .disconnected: "the camera disconnected"
        case let .queueFailed(code): "libcamera refused a request (errno \(-code))"
        }
    }

    /// A configuration error: retrying will not help (the same as V4L2's).
    var isConfigurationError: Bool {
        if case .unavailable = self { return true }
        return false
    }
}

/// One libcamera camera, streaming: the only Swift file that calls libcamera (through
/// CLibCamera's C interface). Owner of the C handle: ``destroy()`` ends it, once.
///
/// Requests and their buffers are indexed 0..<bufferCount; a completed request is the
/// caller's until ``requeue(index:)``. ``requeue(index:)`` may come from any thread.
final class LibcameraCamera: @unchecked Sendable {
    /// What the camera was configured to and what it says about itself.
    struct Info: Sendable {
        var id = ""
        var model = ""
        var format = PixelFormat.nv12
        var width = 0
        var height = 0
        var bytesPerLine = 0
        var bufferCount = 0
        /// properties::Location (0 front, 1 back, 2 external), as V4L2's orientation control.
        var location: Int32?
        /// properties::Rotation, counter-clockwise degrees, as V4L2's sensor rotation.
        var rotation: Int32?
        var fps: Double?

        /// The mounting, as Lector's orientation defaults read it.
        var metadata: CameraMetadata { CameraMetadata(orientationControl: location, sensorRotationControl: rotation) }
    }

    /// One completed request.
    struct Completed {
        var index: Int
        var bytesUsed: Int
        var sequence: UInt32
        var timestamp: MonotonicInstant
        var failed: Bool
    }

    enum Next {
        case timedOut
        case frame(Completed)
        case disconnected
    }

    /// Whether libcamera support is built in.
    static var isBuiltIn: Bool {
        #if canImport(CLibCamera)
        true
        #else
        false
        #endif
    }

    /// libcamera's ids of every camera it finds.
    static func cameraIDs() throws(LibcameraError) -> [String] {
        #if canImport(CLibCamera)
        var out = [CChar](repeating: 0, count: 8192)
        var error = [CChar](repeating: 0, count: 512)
        guard lector_lc_list(&out, out.count, &error, error.count) >= 0 else { throw .failed(string(error)) }
        return string(out).split(separator: "\n").map(String.init)
        #else
        throw .unavailable
        #endif
    }

    /// What camera `id` says about itself, without configuring it.
    static func describe(id: String) throws(LibcameraError) -> Info {
        #if canImport(CLibCamera)
        var raw = lector_lc_info()
        var error = [CChar](repeating: 0, count: 512)
        guard lector_lc_describe(id, &raw, &error, error.count) == 0 else { throw .failed(string(error)) }
        return info(raw)
        #else
        throw .unavailable
        #endif
    }

    #if canImport(CLibCamera)
    private let handle: OpaquePointer
    #endif
    let info: Info

    /// Opens, configures, maps the buffers, starts and queues every request.
    init(id: String, format: PixelFormat?, size: (width: Int, height: Int)?, fps: Double?, buffers: Int) throws(LibcameraError) {
        #if canImport(CLibCamera)
        var raw = lector_lc_info()
        var error = [CChar](repeating: 0, count: 512)
        guard let handle = lector_lc_open(id, format?.rawValue ?? 0, UInt32(size?.width ?? 0), UInt32(size?.height ?? 0),
                                          fps ?? 0, UInt32(buffers), &raw, &error, error.count)
        else { throw .failed(Self.string(error)) }
        self.handle = handle
        info = Self.info(raw)
        #else
        throw .unavailable
        #endif
    }

    /// Waits up to `timeoutMilliseconds` for a completed request.
    func next(timeoutMilliseconds: Int) -> Next {
        #if canImport(CLibCamera)
        var frame = lector_lc_frame()
        switch lector_lc_next(handle, Int32(timeoutMilliseconds), &frame) {
        case Int32(LECTOR_LC_FRAME):
            return .frame(Completed(index: Int(frame.index), bytesUsed: frame.bytes_used, sequence: frame.sequence,
                                    // No timestamp from the pipeline: completion time is the nearest.
                                    timestamp: frame.timestamp_ns == 0 ? MonotonicInstant.now()
                                        : MonotonicInstant(nanoseconds: Int64(truncatingIfNeeded: frame.timestamp_ns)),
                                    failed: frame.failed != 0))
        case Int32(LECTOR_LC_LOST): return .disconnected
        default: return .timedOut
        }
        #else
        return .disconnected
        #endif
    }

    /// The mapped bytes of buffer `index` (every plane, one after another).
    func bytes(index: Int) -> UnsafeRawBufferPointer {
        #if canImport(CLibCamera)
        var length = 0
        let start = lector_lc_buffer(handle, Int32(index), &length)
        return UnsafeRawBufferPointer(start: start, count: start == nil ? 0 : length)
        #else
        return UnsafeRawBufferPointer(start: nil, count: 0)
        #endif
    }

    /// Queues request `index` again. - Throws: `.queueFailed` when libcamera refuses.
    func requeue(index: Int) throws(LibcameraError) {
        #if canImport(CLibCamera)
        let status = lector_lc_requeue(handle, Int32(index))
        if status < 0 { throw .queueFailed(status) }
        #endif
    }

    /// Stops streaming; nothing completes after it. Mappings stay until ``destroy()``.
    func stop() {
        #if canImport(CLibCamera)
        lector_lc_stop(handle)
        #endif
    }

    /// Stops, unmaps, frees and releases the camera. Call once, with no buffer lent.
    func destroy() {
        #if canImport(CLibCamera)
        lector_lc_destroy(handle)
        #endif
    }

    #if canImport(CLibCamera)
    private static func info(_ raw: lector_lc_info) -> Info {
        var info = Info()
        var copy = raw
        info.id = withUnsafeBytes(of: &copy.id) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        info.model = withUnsafeBytes(of: &copy.model) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        info.format = PixelFormat(rawValue: raw.fourcc) ?? .nv12
        info.width = Int(raw.width)
        info.height = Int(raw.height)
        info.bytesPerLine = Int(raw.stride)
        info.bufferCount = Int(raw.buffer_count)
        info.location = raw.location >= 0 ? raw.location : nil
        info.rotation = raw.rotation >= 0 ? raw.rotation : nil
        info.fps = raw.fps > 0 ? raw.fps : nil
        return info
    }

    private static func string(_ chars: [CChar]) -> String {
        String(decoding: chars.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
    #endif
}
