import CFFmpeg
import LectorImaging
import LectorProtocol
import LectorSystem

/// Why a network camera cannot stream now, in the words its status and log use. The
/// descriptions do not change from one retry to the next (the log says a cause once),
/// and never hold the URL.
public enum NetworkCameraError: Error, Equatable, CustomStringConvertible {
    case refused
    case unreachable(String)
    case timedOut
    case unauthorized
    case forbidden
    case notFound
    /// The server answered with something that is not a stream FFmpeg can read.
    case garbage(String)
    case ended
    case noVideo
    case unsupported(String)
    /// This process may not open IP sockets (a sandbox: a systemd unit without the
    /// network-camera drop-in).
    case noNetwork
    /// The system refused to connect (a firewall, or a unit's `IPAddressAllow=`).
    case blocked
    /// A picture larger than any frame lectord accepts can need, more bytes a second
    /// than three such pictures, or seconds of CPU without a picture (a flood).
    case flood
    /// An HTTP reply that is a playlist (ffconcat, HLS) naming files or other URLs,
    /// which lectord does not follow.
    case playlist
    case other(String)

    public var description: String {
        switch self {
        case .refused: "connection refused"
        case let .unreachable(detail): "unreachable (\(detail))"
        case .timedOut: "timed out: the camera does not answer"
        case .unauthorized: "the camera refused the user name or password (401 Unauthorized): check the URL's user and url_password_file"
        case .forbidden: "the camera forbids this stream (403 Forbidden)"
        case .notFound: "the camera has no stream at this path (404 Not Found)"
        case let .garbage(detail): "the camera sent something that is not a video stream (\(detail))"
        case .ended: "the camera closed the stream"
        case .noVideo: "the stream holds no video"
        case let .unsupported(detail): "the stream's codec cannot be decoded (\(detail))"
        case .noNetwork:
            "lectord may not open network sockets here (under systemd: add the network-camera drop-in, docs/cameras.md)"
        case .blocked:
            "the system refused the connection (a firewall, or the unit's IPAddressAllow= leaves the camera's address out: docs/cameras.md)"
        case .flood:
            "the camera floods: a picture over 33 MB, over 99 MB a second, or 5 s of CPU without a picture (backed off like a refused connection)"
        case .playlist: "the camera answered with a playlist (ffconcat or HLS) naming other files, which lectord does not follow"
        case let .other(detail): detail
        }
    }
}

/// One open stream of a network camera through FFmpeg (`lector_netcam.h`): the only
/// Swift file that calls CFFmpeg. Owner of the handle; used by one thread at a time,
/// save ``interrupt()`` (any thread).
final class NetworkInput: @unchecked Sendable {
    /// What comes out of a read.
    enum Picture {
        /// A JPEG as it arrived (MJPEG streams, snapshots): decoded only when read.
        case jpeg(NetworkPictureBuffer)
        /// The luma plane of a decoded frame, without a copy.
        case luma(NetworkPictureBuffer, width: Int, height: Int, bytesPerLine: Int)
    }

    private let handle: OpaquePointer
    /// Asked by FFmpeg's interrupt callback; kept alive as long as the handle.
    private let stop: StopSignal
    /// Asked before every packet (while still: key frames only); kept alive as long as the handle.
    private let hint: StillSceneHint?
    /// The demuxer (`rtsp`, `mpjpeg`, `jpeg_pipe`) and the codec (`h264`, `mjpeg`).
    let formatName: String
    let codecName: String
    /// Whether the URL serves one image per request (a snapshot endpoint).
    let isSingleImage: Bool
    /// The rate the server or the stream declares, if any (the decoder may know it only
    /// after the first picture).
    var frameRate: Double? {
        let rate = lector_netcam_frame_rate(handle)
        return rate > 0 && rate < 1000 ? rate : nil
    }

    /// Connects, handshakes and opens the decoder, each bounded by `openTimeout`.
    /// - Parameters: url: with credentials (never shown); stop: ends every blocking call
    ///   when raised; hint: while its scene is still, key frames only.
    /// - Parameter hardware: per codec (`h264`, `hevc`), the hardware decoders to try in
    ///   order (``HardwareDecoding/choice(forCodec:known:)``).
    init(url: String, rtspTransport: String?, openTimeout: Double, readTimeout: Double, stop: StopSignal,
         hint: StillSceneHint? = nil, hardware: [String: [String]] = [:]) throws(NetworkCameraError) {
        Self.quietLogs
        var options = lector_netcam_options()
        options.open_timeout_ms = Int32(openTimeout * 1000)
        options.read_timeout_ms = Int32(readTimeout * 1000)
        options.should_stop = { context in
            guard let context else { return 0 }
            return Unmanaged<StopSignal>.fromOpaque(context).takeUnretainedValue().isRaised ? 1 : 0
        }
        options.stop_context = Unmanaged.passUnretained(stop).toOpaque()
        if let hint {
            options.is_idle = { context in
                guard let context else { return 0 }
                return Unmanaged<StillSceneHint>.fromOpaque(context).takeUnretainedValue().isStill ? 1 : 0
            }
            options.idle_context = Unmanaged.passUnretained(hint).toOpaque()
        }
        var handle: OpaquePointer?
        let (fault, failure) = Self.withDetail { detail, capacity in
            (rtspTransport ?? "").withCString { transport in
                options.rtsp_transport = rtspTransport == nil ? nil : transport
                return (hardware["h264"] ?? []).joined(separator: ",").withCString { h264 in
                    (hardware["hevc"] ?? []).joined(separator: ",").withCString { hevc in
                        options.hw_h264 = h264
                        options.hw_hevc = hevc
                        return lector_netcam_open(url, &options, &handle, detail, capacity)
                    }
                }
            }
        }
        guard fault == LECTOR_NETCAM_OK, let handle else { throw failure }
        self.handle = handle
        self.stop = stop
        self.hint = hint
        formatName = String(cString: lector_netcam_format_name(handle))
        codecName = String(cString: lector_netcam_codec_name(handle))
        isSingleImage = lector_netcam_is_single_image(handle) != 0
        hardwareStatus = String(cString: lector_netcam_hardware(handle))
    }

    /// Whether this FFmpeg knows a decoder or hardware device type of this name.
    static func knows(decoder name: String) -> Bool { lector_netcam_has_decoder(name) != 0 }

    /// Hardware decoding: "" (not asked for), the decoder in use, or "-" and why every
    /// one asked for failed (the stream decodes in software).
    let hardwareStatus: String

    deinit { lector_netcam_close(handle) }

    /// FFmpeg's own log may name the URL with its credentials: it stays silent.
    private static let quietLogs: Void = lector_netcam_quiet_logs()

    /// Reads until a picture is ready.
    /// - Returns: the picture, and how many were read and given up before it (the
    ///   stream was behind and decoded key frames only, or its scene is still). While
    ///   the scene is still, no picture (nil) at least every 500 ms: what was given up.
    /// - Throws: ``NetworkCameraError``; `nil` when stopped (interrupted or stop raised).
    func next() throws(NetworkInputFailure) -> (picture: Picture?, discarded: Int, idled: Int) {
        var picture = lector_netcam_picture()
        var discarded: Int32 = 0
        let (fault, failure) = Self.withDetail { detail, capacity in
            lector_netcam_next(handle, &picture, &discarded, detail, capacity)
        }
        if fault == LECTOR_NETCAM_STOPPED { throw .stopped }
        guard fault == LECTOR_NETCAM_OK else { throw .failed(failure) }
        let idled = Int(picture.idled)
        if picture.owner == nil { return (nil, Int(discarded), idled) }
        if picture.is_jpeg != 0 { return (.jpeg(NetworkPictureBuffer(picture)), Int(discarded), idled) }
        if lector_netcam_picture_make_gray(&picture) < 0 {
            lector_netcam_picture_release(&picture)
            throw .failed(.unsupported("a pixel format without a luma plane"))
        }
        let width = Int(picture.width), height = Int(picture.height), stride = Int(picture.linesize)
        return (.luma(NetworkPictureBuffer(picture), width: width, height: height, bytesPerLine: stride), Int(discarded), idled)
    }

    /// Ends the blocking call in progress, and every later one, from any thread.
    func interrupt() { lector_netcam_interrupt(handle) }

    /// Runs a call that may describe its failure in a text buffer (on the stack, not
    /// allocated per frame): its fault, and the error that fault and text make.
    private static func withDetail(_ call: (UnsafeMutablePointer<CChar>, Int) -> lector_netcam_fault)
        -> (lector_netcam_fault, NetworkCameraError) {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 256) { buffer in
            guard let base = buffer.baseAddress else { return (LECTOR_NETCAM_OTHER, .other("no memory")) }
            base[0] = 0
            let fault = call(base, buffer.count)
            return fault == LECTOR_NETCAM_OK ? (fault, .other("")) : (fault, error(fault, String(cString: base)))
        }
    }

    private static func error(_ fault: lector_netcam_fault, _ text: String) -> NetworkCameraError {
        switch fault {
        case LECTOR_NETCAM_REFUSED: return .refused
        case LECTOR_NETCAM_UNREACHABLE: return .unreachable(text)
        case LECTOR_NETCAM_TIMEOUT, LECTOR_NETCAM_STOPPED: return .timedOut
        case LECTOR_NETCAM_UNAUTHORIZED: return .unauthorized
        case LECTOR_NETCAM_FORBIDDEN: return .forbidden
        case LECTOR_NETCAM_NOT_FOUND: return .notFound
        case LECTOR_NETCAM_GARBAGE: return .garbage(text)
        case LECTOR_NETCAM_ENDED: return .ended
        case LECTOR_NETCAM_NO_VIDEO: return .noVideo
        case LECTOR_NETCAM_UNSUPPORTED: return .unsupported(text)
        case LECTOR_NETCAM_NO_NETWORK: return .noNetwork
        case LECTOR_NETCAM_BLOCKED: return .blocked
        case LECTOR_NETCAM_FLOOD: return .flood
        case LECTOR_NETCAM_PLAYLIST: return .playlist
        default: return .other(text.isEmpty ? "FFmpeg failed" : text)
        }
    }
}

/// How a read ended without a picture.
enum NetworkInputFailure: Error {
    case failed(NetworkCameraError)
    /// Stopped on purpose (closing, or lectord stopping).
    case stopped
}

/// A picture FFmpeg filled (a JPEG packet or a decoded frame), lent to a ``Frame``
/// without a copy: freed when the last frame that refers to it goes.
final class NetworkPictureBuffer: FrameBuffer, @unchecked Sendable {
    private var picture: lector_netcam_picture

    fileprivate init(_ picture: lector_netcam_picture) { self.picture = picture }

    deinit { lector_netcam_picture_release(&picture) }

    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: picture.data, count: picture.size) }

    /// Nothing to return: FFmpeg's reference goes with the last frame.
    func giveBack() {}
}

extension NetworkCameraError: HostileFailure {
    /// A camera that floods is backed off like one that refuses, whatever it sent first.
    var isHostile: Bool { self == .flood }
}
