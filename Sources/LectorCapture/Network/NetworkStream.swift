import Foundation
import LectorImaging
import LectorProtocol
import LectorSystem

/// One connection to a network camera, from open to close: a reader thread reads
/// packets as they come (decoding what the codec needs, H.264's every reference frame)
/// and keeps only the newest picture; ``grab(timeoutMilliseconds:)`` takes it. A JPEG
/// (MJPEG stream, snapshot) goes out undecoded, a decoded frame as its luma plane: the
/// recognizer converts only the frame it reads. A snapshot endpoint is fetched again
/// at the camera's rate, on the same thread.
final class NetworkStream: CaptureStream, @unchecked Sendable {
    let info: DeviceInfo
    var details: [(String, String)] {
        [("codec", codec), ("decoder", decoder), ("transport", transport)]
    }
    private let codec: String
    /// `software`, or the hardware decoder in use.
    private let decoder: String
    private let transport: String
    private let settings: NetworkSettings
    private let hint: StillSceneHint?
    private let logger: Logger
    /// `Logger.once` key of "decoding key frames only".
    private var behindKey: String { "netcam-behind \(info.path)" }
    /// Raised by ``close()``: ends the reader and FFmpeg's blocking calls.
    private let closing = StopSignal()
    // `condition` guards every stored property below.
    private let condition = NSCondition()
    private var input: NetworkInput?
    private var newest: Frame?
    private var skipped = 0
    private var rejected = 0
    private var damage: String?
    private var failure: NetworkCameraError?
    private var readerDone = false
    private var sequence: UInt32 = 0

    /// Connects and reads the first picture, then starts the reader.
    /// - Parameter stop: lectord's stop, which ends the connection attempt.
    init(settings: NetworkSettings, name: String, stop: StopSignal, hint: StillSceneHint?, logger: Logger) throws(NetworkCameraError) {
        self.settings = settings
        self.hint = hint
        self.logger = logger
        hint?.set(still: false)  // the first picture in full
        let input = try Self.connect(settings, stop: stop, hint: hint)
        var first: (picture: NetworkInput.Picture?, discarded: Int, idled: Int)
        do {
            repeat { first = try input.next() } while first.picture == nil
        } catch {
            switch error {
            case let .failed(cause): throw cause
            case .stopped: throw NetworkCameraError.timedOut
            }
        }
        codec = input.codecName
        decoder = Self.sayDecoder(of: input, settings: settings, camera: name, logger: logger)
        transport = settings.url.scheme.isRTSP ? settings.transport.rawValue : "http"
        var info = DeviceInfo(path: name, state: .streaming, name: Self.kind(of: input, scheme: settings.url.scheme))
        info.driver = "ffmpeg"
        info.format = input.codecName == "mjpeg" ? PixelFormat.mjpeg.fourcc : input.codecName.uppercased()
        info.fps = input.isSingleImage ? settings.fps ?? NetworkSettings.defaultSnapshotRate : input.frameRate
        switch first.picture! {
        case let .jpeg(buffer):
            if let size = try? JPEGDecoder(limits: .standard).size(of: buffer.bytes) {
                info.width = size.width
                info.height = size.height
            }
        case let .luma(_, width, height, _):
            info.width = width
            info.height = height
        }
        self.info = info
        self.input = input
        keep(first.picture!, discarded: first.discarded + first.idled)
        Thread.detachNewThread { [self] in
            Thread.current.name = "lector-netcam"
            // Ahead of the recognizer, as the capture loop's thread: a reader that wakes
            // late hands over older frames.
            try? Syscalls.setThreadPriority(-5)
            read(from: input)
        }
    }

    /// Which decoder reads the stream, and (once per camera) why not the hardware one
    /// `hwdecode` asked for.
    private static func sayDecoder(of input: NetworkInput, settings: NetworkSettings, camera: String, logger: Logger) -> String {
        let asked = settings.hardwareDecoding
        let unknown = asked.choice(forCodec: input.codecName, known: NetworkInput.knows(decoder:)).unknown
        let status = input.hardwareStatus
        if !status.isEmpty, !status.hasPrefix("-") {
            logger.once("netcam-hw \(camera)", .info, "decoding in hardware", [("decoder", status)])
            return status
        }
        let reasons = unknown.map { "\($0): not in this FFmpeg" } + (status.isEmpty ? [] : [String(status.dropFirst())])
        if !reasons.isEmpty {
            logger.once("netcam-hw \(camera)", .warning, "hardware decoding unavailable, decoding in software",
                        [("hwdecode", asked.description), ("reason", reasons.joined(separator: "; "))])
        }
        return "software"
    }

    /// How the camera is described in DEVICES.
    private static func kind(of input: NetworkInput, scheme: NetworkCameraURL.Scheme) -> String {
        if scheme.isRTSP { return "RTSP camera (\(input.codecName))" }
        return input.isSingleImage ? "HTTP snapshot camera" : "HTTP \(input.codecName == "mjpeg" ? "MJPEG" : input.codecName) camera"
    }

    private static func connect(_ settings: NetworkSettings, stop: StopSignal, hint: StillSceneHint?) throws(NetworkCameraError) -> NetworkInput {
        let hardware = Dictionary(uniqueKeysWithValues: HardwareDecoding.codecs.map { codec in
            (codec, settings.hardwareDecoding.choice(forCodec: codec, known: NetworkInput.knows(decoder:)).tried)
        })
        return try NetworkInput(url: settings.address, rtspTransport: settings.url.scheme.isRTSP ? settings.transport.rawValue : nil,
                                openTimeout: settings.openTimeout, readTimeout: max(settings.openTimeout, settings.stallTimeout * 2),
                                stop: stop, hint: hint, hardware: hardware)
    }

    /// The reader thread: reads until closed or failed; fetches a snapshot again at the
    /// camera's rate.
    private func read(from first: NetworkInput) {
        var input = first
        let interval = 1 / max(info.fps ?? NetworkSettings.defaultSnapshotRate, 0.001)
        var nextFetch = MonotonicInstant.now().adding(milliseconds: interval * 1000)
        defer {
            condition.lock()
            readerDone = true
            self.input = nil
            condition.broadcast()
            condition.unlock()
        }
        while !closing.isRaised {
            do {
                let (picture, discarded, idled) = try input.next()
                if discarded > 0 {
                    logger.once(behindKey, .warning, "this machine decodes the stream slower than it comes: decoding key frames only while behind")
                }
                keep(picture, discarded: discarded + idled)
            } catch {
                guard case let .failed(cause) = error else { return }
                guard input.isSingleImage, cause == .ended else { return fail(cause) }
                // A snapshot endpoint: one picture per request, fetched again on time.
                let wait = -MonotonicInstant.now().milliseconds(since: nextFetch) / 1000
                if wait > 0, closing.wait(seconds: wait) { return }
                nextFetch = nextFetch.adding(milliseconds: interval * 1000)
                if MonotonicInstant.now().milliseconds(since: nextFetch) > 0 { nextFetch = .now() }
                do {
                    input = try Self.connect(settings, stop: closing, hint: hint)
                } catch {
                    if closing.isRaised { return }
                    return fail(error)
                }
                condition.lock()
                self.input = input
                condition.unlock()
            }
        }
    }

    private func fail(_ cause: NetworkCameraError) {
        condition.lock()
        failure = cause
        condition.broadcast()
        condition.unlock()
    }

    /// Puts `picture` in the slot as a frame, replacing (dropping) one not taken yet;
    /// nil: no picture, only `discarded` (pictures not decoded while the scene is still).
    private func keep(_ picture: NetworkInput.Picture?, discarded: Int) {
        let now = MonotonicInstant.now()
        condition.lock()
        defer {
            condition.signal()
            condition.unlock()
        }
        skipped += discarded
        let frame: Frame
        switch picture {
        case nil:
            return
        case let .jpeg(buffer):
            guard LumaExtractor.hasJPEGMarkers(buffer.bytes) else {
                rejected += 1
                damage = "JPEG without start and end markers"
                return
            }
            frame = Frame(format: .mjpeg, width: 0, height: 0, sequence: sequence, timestamp: now, buffer: buffer)
        case let .luma(buffer, width, height, bytesPerLine):
            frame = Frame(format: .grey, width: width, height: height, bytesPerLine: bytesPerLine,
                          bytesUsed: bytesPerLine * height, sequence: sequence, timestamp: now, buffer: buffer)
        }
        sequence &+= 1
        if let older = newest {
            older.giveBack()
            skipped += 1
        }
        newest = frame
    }

    func grab(timeoutMilliseconds: Int) throws(NetworkCameraError) -> CaptureGrab {
        let deadline = Date(timeIntervalSinceNow: Double(timeoutMilliseconds) / 1000)
        condition.lock()
        defer { condition.unlock() }
        while newest == nil, skipped == 0, rejected == 0, failure == nil {
            if !condition.wait(until: deadline) { break }
        }
        var grab = CaptureGrab()
        grab.frame = newest
        grab.skipped = skipped
        grab.rejected = rejected
        grab.damage = damage
        newest = nil
        skipped = 0
        rejected = 0
        if !grab.dequeuedAny, let failure { throw failure }
        return grab
    }

    /// Ends the reader (at once: FFmpeg's call in progress is interrupted) and waits for it.
    func close() {
        closing.raise()
        condition.lock()
        input?.interrupt()
        while !readerDone { condition.wait() }
        newest?.giveBack()
        newest = nil
        condition.unlock()
    }
}
