import LectorProtocol
import LectorSystem

/// One camera's state at one moment, gathered in one place: STATUS's device entries and
/// the systemd `STATUS=` text are both made from it.
public struct CameraStatus: Sendable {
    public var name: String
    public var info: DeviceInfo
    public var running: Bool
    public var watched: Bool
    /// Why it runs (``CameraHub/runningReason(_:)``), nil when it does not.
    public var runningReason: String?
    public var counters: FrameCounters.Snapshot
    /// Captured and recognized frames per second over the recent timing window.
    public var rates: (captured: Double, recognized: Double)
    public var recognizeMilliseconds: Percentiles?
    public var latencyMilliseconds: Percentiles?

    /// STATUS's entry for this camera.
    public var deviceStatus: DeviceStatus {
        DeviceStatus(path: info.path, state: info.state, running: running, watched: watched,
                     captured: counters.captured, recognized: counters.recognized, dropped: counters.dropped,
                     rejected: counters.rejected, unchanged: counters.unchanged, captureFPS: (rates.captured * 100).rounded() / 100,
                     recognizeFPS: (rates.recognized * 100).rounded() / 100,
                     recognizeMilliseconds: recognizeMilliseconds, latencyMilliseconds: latencyMilliseconds, name: name,
                     error: info.state == .lost ? info.error : nil, runningReason: runningReason)
    }

    /// The supervisor's sample (its rates are measured by the supervisor from the counters).
    public var sample: CameraSample {
        CameraSample(name: name, state: info.state, captured: counters.captured, recognized: counters.recognized,
                     latencyMilliseconds: latencyMilliseconds?.p50, error: info.error)
    }
}

extension CameraHub {
    /// Every camera's state now, in the hub's order.
    public func status(now: MonotonicInstant = .now()) -> [CameraStatus] {
        entries.map { entry in
            let camera = entry.camera
            let timings = timings(entry.name)
            return CameraStatus(name: entry.name, info: camera.deviceInfo, running: camera.isRunning,
                                watched: isWatched(entry.name), runningReason: runningReason(entry.name), counters: camera.counters.snapshot,
                                rates: timings.rates(now: now), recognizeMilliseconds: timings.recognizeMilliseconds,
                                latencyMilliseconds: timings.latencyMilliseconds)
        }
    }
}
