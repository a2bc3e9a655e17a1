import Foundation
import LectorClient
import LectorProtocol
import LectorSystem

/// `lector speak`: watches one camera's text and line tracks and says each line as it
/// settles (``SpeechPlan``), through the speaker or into WAV files, until lectord closes
/// the connection or `stop` is raised (SIGINT, SIGTERM: what is being said is cut).
public enum ReadAloud {
    /// How often the loop looks at the utterance in progress while no message comes.
    static let tick = 0.05

    /// Runs until `stop`; throws when lectord refuses, closes or cannot be reached.
    /// - Parameter log: problems worth telling (each distinct one once).
    public static func run(_ settings: SpeakSettings, connection: LectorConnection, stop: StopSignal,
                           log: (String) -> Void) throws {
        let program = try EspeakProgram.find()
        let output: any SpeechOutput = try settings.wavDirectory.map { directory throws(SpeakError) in
            try WAVRecorder(program: program, rate: settings.rate, directory: directory)
        } ?? EspeakSpeaker(program: program, rate: settings.rate)
        let device = try subscribe(settings, connection)
        var plan = SpeechPlan(settings: settings)
        var playback: (any SpeechPlayback)?
        var told: Set<String> = []
        func end(interrupted: Bool) {
            guard let current = playback else { return }
            let now = MonotonicInstant.now()
            if let problem = current.finish(interrupted: interrupted, now: now), told.insert(problem).inserted { log(problem) }
            plan.finished(completely: !interrupted, now: now)
            playback = nil
        }
        defer { end(interrupted: true) }
        while !stop.isRaised {
            var cut = SpeechPlan.Interruption.none
            do {
                let (_, message) = try connection.receive(timeout: tick)
                switch message {
                case let .text(text) where text.device == device: cut = plan.text(text)
                case let .track(track) where track.device == device: cut = plan.track(track, now: .now())
                case let .error(refusal): throw SpeakError.refused(refusal.message)
                default: break
                }
            } catch ConnectionError.timedOut {
            }
            if cut == .cut { end(interrupted: true) }
            if let current = playback, current.hasEnded(now: .now()) { end(interrupted: false) }
            if playback == nil, let utterance = plan.next(now: .now()) {
                do {
                    playback = try output.start(utterance, now: .now())
                } catch {
                    plan.finished(completely: false, now: .now())
                    if told.insert("\(error)").inserted { log("\(error)") }
                }
            }
        }
    }

    /// Watches the camera's text (lines, with their tracks and languages) and tracks.
    /// - Returns: the camera's name.
    private static func subscribe(_ settings: SpeakSettings, _ connection: LectorConnection) throws -> String {
        var watch = WatchRequest()
        watch.enable = true
        if let device = settings.device { watch.devices = [device] }
        watch.text = true
        watch.frame = false
        watch.level = .line
        watch.tracks = true
        try connection.send(.watch(watch))
        var cameras: [String] = []
        while true {
            let (_, message) = try connection.receive(timeout: 10)
            switch message {
            case let .error(refusal): throw SpeakError.refused(refusal.message)
            case let .devices(devices): cameras = devices.devices.map { $0.info.name ?? $0.info.path }
            case .watch:
                if let device = settings.device {
                    return cameras.first { $0 == device } ?? device
                }
                if cameras.count > 1 { throw SpeakError.severalCameras(cameras) }
                guard let only = cameras.first else { throw SpeakError.noCamera }
                return only
            default: continue
            }
        }
    }
}
