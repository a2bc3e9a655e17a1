import Foundation
import LectorImaging
import LectorProtocol
import LectorSystem

/// Why capture from a device stopped or could not start: a small closed set that
/// decides what the user is told and whether retrying can help.
public enum CaptureError: Error, Equatable, CustomStringConvertible {
    /// A system call failed: ENOENT (unplugged), ENODEV/ENXIO (gone), EIO (failing), ...
    case system(SystemError)
    /// The node does not capture video (a UVC metadata node, an output node).
    case notCapture(path: String, card: String)
    /// The node has no streaming I/O.
    case noStreaming(path: String)
    /// Nothing suitable to capture.
    case negotiation(FormatNegotiation.Failure)
    /// The driver set another format than the one asked for.
    case formatRefused(asked: PixelFormat, got: String)
    /// poll() reported an error on the queue (POLLERR) and DQBUF did not say which.
    case queueFailed

    public var description: String {
        switch self {
        case let .system(error):
            switch error.errno {
            case ENOENT: "no such device (\(error))"
            case ENODEV, ENXIO: "the device has gone (\(error))"
            case EACCES, EPERM: "no permission to open the device (\(error)); add the user to the 'video' group"
            case EBUSY: "the device is in use by another program (\(error))"
            default: "\(error)"
            }
        case let .notCapture(path, card):
            "\(path) (\(card)) is not a video capture node (it may be a camera's metadata node; try the one next to it)"
        case let .noStreaming(path): "\(path) does not support streaming I/O"
        case let .negotiation(failure): failure.description
        case let .formatRefused(asked, got): "the driver set \(got) instead of \(asked.fourcc)"
        case .queueFailed: "the capture queue reported an error"
        }
    }

    /// Whether the configuration, not the device's state, is wrong: retrying the same
    /// node cannot help (though a by-id path may come to name another device).
    public var isConfigurationError: Bool {
        switch self {
        case .notCapture, .noStreaming, .negotiation, .formatRefused: true
        case .system, .queueFailed: false
        }
    }
}

extension CaptureError {
    /// Wraps a system call failure.
    init(_ error: SystemError) { self = .system(error) }

    /// Classifies an error thrown by capture code: only `SystemError` and
    /// `CaptureError` are ever thrown there.
    init(any error: any Error) {
        switch error {
        case let error as CaptureError: self = error
        case let error as SystemError: self = .system(error)
        default: preconditionFailure("capture threw \(error), which is neither a SystemError nor a CaptureError")
        }
    }

    /// Runs `body`, turning what it throws into a `CaptureError`.
    static func mapping<T>(_ body: () throws -> T) throws(CaptureError) -> T {
        do {
            return try body()
        } catch {
            throw CaptureError(any: error)
        }
    }
}
