import Foundation
import LectorImaging
import LectorProtocol
import LectorSystem
import Synchronization

/// A network camera as a frame source (`--url`): RTSP (H.264, H.265), an HTTP MJPEG
/// stream, or an HTTP JPEG snapshot polled at `--fps`, through FFmpeg. Streamed by the
/// reconnecting ``CaptureLoop`` one ``NetworkStream`` at a time: V4L2's rules (newest
/// frame only, losses logged once per cause, backoff, stalls, stop within 100 ms).
///
/// Its ``name`` is the URL without credentials; the credentials reach FFmpeg only.
public final class NetworkSource: FrameSource, CaptureDevice {
    public let name: String
    public let settings: NetworkSettings
    private let loop: CaptureLoop
    private let logger: Logger
    /// lectord's stop, seen by FFmpeg's interrupt callback while connecting.
    private let runStop = Mutex<StopSignal?>(nil)
    /// Set by the camera's recognition loop: while the scene is still, key frames only.
    public let sceneHint: StillSceneHint? = StillSceneHint()

    public init(settings: NetworkSettings, logger: Logger) {
        name = settings.url.redacted
        self.settings = settings
        self.logger = logger.with("device", name)
        loop = CaptureLoop(name: name, stallTimeout: settings.stallTimeout, retryBackoff: settings.retryBackoff,
                           logger: self.logger)
    }

    /// Changes the stall timeout (SIGHUP); nil: the default.
    public func setStallTimeout(_ seconds: Double?) {
        loop.setStallTimeout(seconds ?? NetworkSettings(url: settings.url).stallTimeout)
    }

    public func run(into sink: any FrameSink, stop: StopSignal) throws {
        runStop.withLock { $0 = stop }
        loop.run(self, into: sink, stop: stop)
    }

    /// Connects and reads the first picture (so a wrong password, a path with no stream
    /// or garbage is a failure to open, said once), then reads on in the stream's thread.
    func open() throws(NetworkCameraError) -> NetworkStream {
        let stop = runStop.withLock { $0 } ?? StopSignal()
        return try NetworkStream(settings: settings, name: name, stop: stop, hint: sceneHint, logger: logger)
    }
}
