import Foundation
import LectorProtocol
import LectorPipeline
import LectorRecognition
import LectorServer
import LectorSystem

/// `lectord --check-config`: the options (flags merged with the configuration file)
/// checked as far as can be without running, and what lectord would run with them.
public enum ConfigCheck {
    /// What would run, one line each, or the first problem found.
    /// - Throws: ``UsageError`` naming what is wrong (lectord then exits 2).
    public static func report(_ options: DaemonOptions, configPath: String?) throws(UsageError) -> [String] {
        var lines = ["lectord \(LectorRelease.version): the configuration is valid",
                     "configuration file: \(configPath ?? "none")"]
        if let group = options.socketGroup, Syscalls.groupID(group) == nil {
            throw UsageError("--socket-group: no such group '\(group)'")
        }
        let server = options.server
        let socket = options.socketPath ?? SocketPath.standard()
        if options.stdout && options.socketPath == nil {
            lines.append("output: TEXT and FRAME lines on standard output (no socket)")
        } else {
            let group: String = options.socketGroup.map { " (group \($0), mode 0660)" } ?? " (mode 0660)"
            let clientTimeout = ServerLoop.seconds(server.clientTimeout)
            let idleTimeout = ServerLoop.seconds(server.idleTimeout)
            var line = "socket: \(socket)\(group), at most \(server.maximumClients) clients"
            line += ", client timeout \(clientTimeout) s, idle timeout \(idleTimeout) s, \(server.clientBufferBytes) bytes per client"
            lines.append(line)
        }
        let running = options.alwaysOn || options.stdout ? "always" : "only while watched"
        let exit: String = options.maxFrames.map { ", exit after \($0) frames" } ?? ""
        lines.append("cameras run: \(running), log level \(options.logLevel.name)\(exit)")
        if let directory = options.recordDirectory {
            lines.append("record: captured frames into \(directory), at most \(options.recordMaximumMegabytes) MB")
        }
        if let history = options.historyPath ?? Daemon.defaultHistoryPath(environment: ProcessInfo.processInfo.environment) {
            lines.append("history: every MATCH into \(history), kept \(String(format: "%g", options.historyKeepDays)) days")
        }
        if let directory = options.evidenceDirectory {
            lines.append("evidence: frames and crops into \(directory), at most \(String(format: "%g", options.evidenceMaximumMegabytes)) MB, "
                         + "kept \(String(format: "%g", options.evidenceKeepDays)) days")
        }
        var languagesChecked = Set<String>()
        for camera in options.cameras {
            lines.append("camera \(camera.name): " + (try source(camera)))
            let recognizer = camera.recognizer
            let key = "\(recognizer.language)|\(recognizer.dataPath ?? "")"
            if languagesChecked.insert(key).inserted {
                do {
                    // `auto` reads Latin with Latin's language and needs OSD to find scripts.
                    _ = try TesseractEngine(language: recognizer.baseLanguage, dataPath: recognizer.dataPath)
                    if recognizer.language == ScriptLanguages.automatic {
                        _ = try TesseractEngine(language: "osd", dataPath: recognizer.dataPath, pageSegmentation: 0)
                    }
                } catch {
                    throw UsageError("\(camera.name): \(error)")
                }
            }
            var recognition = "  recognition: lang \(recognizer.language), psm \(recognizer.pageSegmentation), "
                + "downscale \(recognizer.downscale), deadline \(recognizer.deadlineDescription)"
            if let box = recognizer.regionOfInterest { recognition += ", roi \(box.x),\(box.y),\(box.width),\(box.height)" }
            if recognizer.symbols { recognition += ", symbols" }
            if !recognizer.deskew { recognition += ", deskew off" }
            if let path = recognizer.dataPath { recognition += ", tessdata \(path)" }
            lines.append(recognition)
            if camera.orientation.isAutomatic {
                do {
                    _ = try OrientationDetector(dataPath: recognizer.dataPath)
                } catch {
                    throw UsageError("\(camera.name): rotation auto: \(error)")
                }
            }
            lines.append("  orientation: " + orientation(camera.orientation))
            for zone in recognizer.zones {
                let profile = zone.profile
                var line = "  zone \(zone.name): \(zone.rect.x),\(zone.rect.y),\(zone.rect.width),\(zone.rect.height), psm \(profile.pageSegmentation)"
                line += ", lang \(profile.language ?? recognizer.baseLanguage)"
                if let whitelist = profile.whitelist { line += ", whitelist \(whitelist)" }
                if profile.scale > 1 { line += ", scale \(profile.scale)" }
                if profile.invert { line += ", inverted" }
                if profile.minimumHeight > 0 { line += ", min height \(profile.minimumHeight)" }
                lines.append(line)
            }
            for rule in camera.rules {
                var line = "  rule \(rule.qualifiedName): match \(rule.pattern)"
                if rule.minimumConfidence > 0 { line += ", min confidence \(rule.minimumConfidence)" }
                line += rule.settledOnly ? ", settled readings" : ", every reading"
                if rule.alike { line += ", look-alikes corrected" }
                if let known = rule.known { line += ", known list \(known.path) (\(known.entries.count) entries, max distance \(rule.maximumDistance))" }
                if let seconds = rule.appearanceSeconds { line += ", once per appearance (repeat after \(seconds) s)" }
                if rule.isMeter {
                    line += ", meter checks:" + (rule.monotonic ? " monotonic" : "")
                    if let rate = rule.maximumRate { line += " max rate \(rate)/h" }
                    line += " reset after \(rule.resetAfter)"
                }
                if let display = rule.display.summary { line += ", \(display)" }
                if let hook = rule.hook { line += ", on match \(hook) (timeout \(rule.hookTimeout) s)" }
                lines.append(line)
                if let warning = RuleSpec.patternWarning(rule.pattern) { lines.append("  warning: rule \(rule.qualifiedName): \(warning)") }
            }
        }
        return lines
    }

    /// The source of `camera` as it would run, checked where it can be.
    private static func source(_ camera: CameraSpec) throws(UsageError) -> String {
        switch camera.source {
        case .demo:
            return "the bundled demo frames at \(camera.capture.fps ?? SourceFactory.demoFramesPerSecond) fps"
        case let .replay(replay):
            guard let status = Syscalls.fileStatus(replay.path) else { throw UsageError("--replay: \(replay.path) does not exist") }
            let kind = status.type == S_IFDIR ? "the images in" : "the file"
            var text = "replay \(kind) \(replay.path)"
            if let format = replay.rawFormat, let size = replay.rawSize { text += " (raw \(format.fourcc) \(size.width)x\(size.height))" }
            text += replay.fps.map { " at \($0) fps" } ?? " as fast as recognized"
            if replay.loop { text += ", looping" }
            return text
        case let .network(url):
            do {
                _ = try SourceFactory.networkSettings(url, request: camera.capture)
            } catch {
                throw UsageError(error.description)
            }
            var text = "network camera \(url)"
            if url.scheme.isRTSP { text += " (RTSP over \(camera.capture.rtspTransport ?? .tcp))" }
            if camera.capture.urlPasswordFile != nil { text += ", password from url_password_file" }
            if !url.scheme.isRTSP, let fps = camera.capture.fps { text += ", snapshots at \(fps) fps" }
            return text
        case let .device(path):
            var text = "V4L2 device \(path)"
            if Syscalls.fileStatus(path) == nil { text += " (not present now: lectord reports it lost and waits for it)" }
            let capture = camera.capture
            var asked: [String] = []
            if let format = capture.format { asked.append(format.fourcc) }
            if let size = capture.size { asked.append("\(size.width)x\(size.height)") }
            if let fps = capture.fps { asked.append("\(fps) fps") }
            if capture.io != "auto" { asked.append("io \(capture.io)") }
            return text + (asked.isEmpty ? "" : ", asking for " + asked.joined(separator: " "))
        }
    }

    private static func orientation(_ settings: OrientationSettings) -> String {
        var parts: [String] = []
        if let device = settings.deviceOrientation { parts.append("device \(device.rawValue)") }
        if let position = settings.cameraPosition { parts.append("camera \(position.rawValue)") }
        if settings.isAutomatic {
            parts.append("rotation auto" + (settings.rotation.map { " (from \($0))" } ?? ""))
        } else if let rotation = settings.rotation {
            parts.append("rotation \(rotation)")
        }
        if settings.mirror == true { parts.append("mirrored") }
        return (parts.isEmpty ? "" : parts.joined(separator: ", ") + " → ") + "EXIF \(settings.imageOrientation.description)"
    }
}
