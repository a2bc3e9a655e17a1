import Foundation
import Synchronization

/// `lectord` itself: starts one ``Camera`` per source, publishes what they recognize,
/// and stops in order on SIGINT/SIGTERM, on `--max-frames`, or when every replay ends.
public final class Daemon: Sendable {
    /// The version reported by `--version` and the VERSION message.
    public static let release = "0.1.0"

    private let options: DaemonOptions
    private let logger: Logger
    private let stop = StopSignal()
    private let stdoutPublisher: StdoutPublisher?

    public init(options: DaemonOptions, logger: Logger) {
        self.options = options
        self.logger = logger
        stdoutPublisher = options.stdout ? StdoutPublisher(maxFrames: options.maxFrames) : nil
    }

    /// Runs until stopped; returns the process exit status.
    public func run() -> Int32 {
        guard options.stdout else {
            logger.error("the socket server is not part of this build yet: use --stdout")
            return 2
        }
        var cameras: [Camera] = []
        for spec in options.cameras {
            do {
                let source = try SourceFactory.makeSource(for: spec, logger: logger)
                let publisher = stdoutPublisher
                let stop = self.stop
                let camera = try Camera(source: source, recognizer: spec.recognizer,
                                        orientation: SourceFactory.orientation(for: spec, source: source),
                                        logger: logger) { publication in
                    if publisher?.publish(publication) == .finished { stop.raise() }
                }
                cameras.append(camera)
                logger.info("camera ready", [("device", spec.name),
                                             ("orientation", camera.orientation.imageOrientation.description)])
            } catch {
                logger.error("cannot start source", [("device", spec.name), ("reason", "\(error)")])
                cameras.forEach { $0.stop() }
                return 1
            }
        }
        let running = Mutex(cameras.count)
        for camera in cameras {
            camera.start { [stop] in
                if running.withLock({ $0 -= 1; return $0 }) == 0 { stop.raise() }  // every source ended
            }
        }
        _ = SignalObserver { [stop, logger] signal in
            if signal == SIGHUP { return }  // reload comes with the config file
            logger.notice("stopping", [("signal", signal == SIGINT ? "SIGINT" : "SIGTERM")])
            stop.raise()
        }
        while !stop.wait(seconds: 3600) {}
        cameras.forEach { $0.stop() }
        for camera in cameras {
            let counts = camera.counters.snapshot
            logger.info("camera stopped", [("device", camera.name), ("captured", "\(counts.captured)"),
                                           ("recognized", "\(counts.recognized)"), ("dropped", "\(counts.dropped)"),
                                           ("rejected", "\(counts.rejected)")])
        }
        if stdoutPublisher?.failed == true { return 1 }
        return 0
    }
}

/// `--stdout`: writes each recognized frame's TEXT and FRAME lines, and counts frames
/// for `--max-frames`.
final class StdoutPublisher: Sendable {
    enum Outcome { case published, finished }

    private struct State {
        var published = 0
        var failed = false
    }

    private let maxFrames: Int?
    private let state = Mutex(State())

    init(maxFrames: Int?) { self.maxFrames = maxFrames }

    var failed: Bool { state.withLock { $0.failed } }

    /// Writes the lines unless `--max-frames` were already written; serialised so lines
    /// of several cameras never interleave.
    func publish(_ publication: Publication) -> Outcome {
        state.withLock { state in
            if state.failed { return .finished }
            if let maxFrames, state.published >= maxFrames { return .finished }
            do throws(SystemError) {
                try LineWriter.writeLine(publication.textLine, to: 1)
                try LineWriter.writeLine(JSONWriter.bytes(publication.frame.message), to: 1)
            } catch {
                state.failed = error.errno != EPIPE  // a reader that left is a normal end
                return .finished
            }
            state.published += 1
            if let maxFrames, state.published >= maxFrames { return .finished }
            return .published
        }
    }
}
