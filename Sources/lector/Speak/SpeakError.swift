/// Why `lector speak` cannot go on.
public enum SpeakError: Error, Equatable, CustomStringConvertible {
    /// No espeak-ng program on the PATH.
    case noEspeak(searched: String)
    /// lectord refused the WATCH (an unknown camera).
    case refused(String)
    /// lectord has several cameras and none was named.
    case severalCameras([String])
    /// lectord has no camera.
    case noCamera
    /// A WAV file or its notes could not be written or read.
    case file(path: String, reason: String)
    /// espeak-ng could not make a WAV file.
    case espeakFailed(String)

    public var description: String {
        switch self {
        case let .noEspeak(searched):
            "espeak-ng is not installed (searched \(searched)); install it: apt-get install espeak-ng"
        case let .refused(message): message
        case let .severalCameras(names):
            "lectord has several cameras (\(names.joined(separator: ", "))): give --device CAMERA to choose the one read aloud"
        case .noCamera: "lectord has no camera to read aloud"
        case let .file(path, reason): "\(path): \(reason)"
        case let .espeakFailed(reason): "espeak-ng failed: \(reason)"
        }
    }
}
