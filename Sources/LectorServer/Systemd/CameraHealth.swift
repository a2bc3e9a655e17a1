import Foundation
import LectorPipeline
import LectorProtocol
import LectorSystem

/// Honest health for the systemd watchdog: the service is healthy only while every
/// camera that is meant to stream really delivers frames. A camera that says it streams
/// but delivers nothing (motion's "Connection OK" with no images) or hangs in opening
/// makes it unhealthy; a camera that reports itself lost is not, because reporting and
/// retrying is what the daemon should do then; an idle one (nobody watches) is not.
///
/// Progress is judged from the camera's captured counter, so it needs no hook in the
/// capture loop: the tracker remembers when each counter last moved.
public struct CameraHealth: Sendable {
    private struct Progress {
        var state: CameraState
        var captured: Int
        /// When the counter last moved or the camera entered its state.
        var since: MonotonicInstant
    }

    /// A camera that delivers nothing for this long is stalled.
    public let stallSeconds: Double
    private var progress: [String: Progress] = [:]

    public init(stallSeconds: Double) { self.stallSeconds = stallSeconds }

    /// Records samples taken at `now`.
    public mutating func observe(_ samples: [CameraSample], at now: MonotonicInstant) {
        for sample in samples {
            if let old = progress[sample.name], old.state == sample.state, old.captured == sample.captured { continue }
            progress[sample.name] = Progress(state: sample.state, captured: sample.captured, since: now)
        }
    }

    /// The cameras that should deliver frames and have not for ``stallSeconds``, with
    /// the seconds since their last progress, in name order.
    public func stalled(at now: MonotonicInstant) -> [(name: String, seconds: Double)] {
        progress.compactMap { name, entry -> (name: String, seconds: Double)? in
            guard entry.state == .streaming || entry.state == .opening else { return nil }
            let seconds = now.milliseconds(since: entry.since) / 1000
            return seconds >= stallSeconds ? (name, seconds) : nil
        }
        .sorted { $0.name < $1.name }
    }

    /// Whether a `WATCHDOG=1` may be sent now.
    public func isHealthy(at now: MonotonicInstant) -> Bool { stalled(at: now).isEmpty }
}

/// The one-line `STATUS=` text: per camera its state, frame rate and latency, e.g.
/// `/dev/video0: streaming 25.0 fps, 2.1 recognized/s, latency 180 ms; demo: idle`.
public enum ServiceStatusText {
    /// Renders `samples`; `stalled` cameras say so with their seconds without frames.
    public static func render(_ samples: [CameraSample], stalled: [(name: String, seconds: Double)] = []) -> String {
        if samples.isEmpty { return "no cameras" }
        return samples.map { sample in
            var text = "\(sample.name): "
            if let stall = stalled.first(where: { $0.name == sample.name }) {
                text += "stalled, no frame for \(format(stall.seconds, digits: 0)) s"
                return text
            }
            text += sample.state.rawValue
            switch sample.state {
            case .streaming:
                text += " \(format(sample.fps, digits: 1)) fps, \(format(sample.recognizedPerSecond, digits: 1)) recognized/s"
                if let latency = sample.latencyMilliseconds { text += ", latency \(format(latency, digits: 0)) ms" }
            case .lost:
                if let error = sample.error { text += " (\(error))" }
            case .opening, .idle:
                break
            }
            return text
        }
        .joined(separator: "; ")
    }

    private static func format(_ value: Double, digits: Int) -> String {
        value.isFinite ? String(format: "%.\(digits)f", value) : "?"
    }
}

/// Captured and recognized frames per second of each camera, from its counters as the
/// supervisor samples them: the counts over the last ``windowSeconds``, so a slow
/// recognizer does not hide a camera's real frame rate.
public struct FrameRateMeter: Sendable {
    public let windowSeconds: Double
    private var history: [String: RecentSamples<CounterPoint>] = [:]

    public init(windowSeconds: Double = 5) { self.windowSeconds = windowSeconds }

    /// Records `samples` taken at `now` and returns them with ``CameraSample/fps`` and
    /// ``CameraSample/recognizedPerSecond`` filled in (0 until there are two samples).
    public mutating func measure(_ samples: [CameraSample], at now: MonotonicInstant) -> [CameraSample] {
        samples.map { sample in
            var points = history[sample.name, default: RecentSamples(capacity: 64)]
            // A counter that went back (a restarted camera's counters do not) starts over.
            if let last = points.last, last.captured > sample.captured || last.recognized > sample.recognized { points.removeAll() }
            points.append(CounterPoint(time: now, captured: sample.captured, recognized: sample.recognized))
            history[sample.name] = points
            var measured = sample
            (measured.fps, measured.recognizedPerSecond) = points.rates(overLast: windowSeconds, now: now)
            return measured
        }
    }
}
