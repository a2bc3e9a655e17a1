import LectorProtocol
import LectorSystem

/// Human-readable renderings of server messages for `lector`.
enum ClientFormat {
    private static func fixed(_ value: Double?, _ digits: Int = 2) -> String {
        guard let value else { return "-" }
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let rounded = (value * scale).rounded() / scale
        var text = String(rounded)
        if let dot = text.firstIndex(of: ".") {
            let decimals = text.distance(from: dot, to: text.endIndex) - 1
            if decimals < digits { text += String(repeating: "0", count: digits - decimals) }
        } else {
            text += "." + String(repeating: "0", count: digits)
        }
        return text
    }

    /// A TEXT message as "DEVICE CONFIDENCE TEXT", one line per recognized text line
    /// (per block line when the message stops at blocks).
    /// `lector watch`: a separator with the capture time, device and frame, then the
    /// text lines.
    static func watchLines(_ message: TextMessage) -> [String] {
        ["-- \(message.time) \(message.device) frame \(message.sequence)"] + textLines(message)
    }

    static func textLines(_ message: TextMessage) -> [String] {
        var out: [String] = []
        for block in message.blocks {
            if let lines = block.children {
                for line in lines { out.append("\(message.device) \(fixed(line.confidence)) \(line.text)") }
            } else {
                for line in block.text.split(separator: "\n") { out.append("\(message.device) \(fixed(block.confidence)) \(line)") }
            }
        }
        return out
    }

    /// A MATCH message readably: `meter/reading any "01234567" [0123, 4567] 0.93`
    /// (device/zone, rule, text, groups when the expression has any, confidence).
    static func matchLine(_ message: MatchMessage) -> String {
        let quoted = "\"" + message.text.replacingOccurrences(of: "\"", with: "\\\"") + "\""
        var line = message.device + (message.zone.map { "/\($0)" } ?? "") + " \(message.rule) \(quoted)"
        if !message.groups.isEmpty { line += " [" + message.groups.joined(separator: ", ") + "]" }
        return line + " \(fixed(message.confidence))"
    }

    /// A CODE readably: `DEVICE/ZONE FORMAT "TEXT"`.
    static func codeLine(_ message: CodeMessage) -> String {
        let quoted = "\"" + message.text.replacingOccurrences(of: "\"", with: "\\\"") + "\""
        return message.device + (message.zone.map { "/\($0)" } ?? "") + " \(message.format.rawValue) \(quoted)"
    }

    /// A kept MATCH readably: its time, then ``matchLine(_:)``, then what the history adds
    /// (`known NAME`, `rejected: REASON`, the crop's path).
    /// Control characters of stored text are escaped (``printable(_:)``).
    static func historyLine(_ message: MatchMessage) -> String {
        var line = message.time + " " + matchLine(message)
        if let entry = message.known?.entry { line += " known " + (entry.name ?? entry.text) }
        if let rejected = message.rejected { line += " rejected: " + rejected }
        if let evidence = message.evidence { line += " " + evidence.crop }
        return printable(line)
    }

    /// The columns of `lector history --csv`.
    static let historyCSVHeader = "time,device,zone,rule,text,read,known,known_name,confidence,rejected,evidence_frame,evidence_crop"

    /// A kept MATCH as a CSV row (RFC 4180: a field with a comma, quote or line break is
    /// quoted; ``csvField(_:)``).
    static func historyCSV(_ message: MatchMessage) -> String {
        let entry = message.known?.entry
        let fields = [message.time, message.device, message.zone ?? "", message.rule, message.text, message.read ?? "",
                      entry?.text ?? "", entry?.name ?? "", fixed(message.confidence), message.rejected ?? "",
                      message.evidence?.frame ?? "", message.evidence?.crop ?? ""]
        return fields.map(csvField).joined(separator: ",")
    }

    /// One CSV field: a field that starts with `=`, `+`, `-`, `@`, a tab or a carriage
    /// return (what spreadsheets take as a formula: `=HYPERLINK(…)` read off a sign) gets
    /// a `'` before it, as OWASP's CSV-injection advice has it; then a field with a
    /// comma, quote or line break is quoted (RFC 4180).
    static func csvField(_ field: String) -> String {
        let text = field.first.map { "=+-@\t\r".contains($0) } == true ? "'" + field : field
        return text.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline })
            ? "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : text
    }

    /// `text` for a terminal line: control characters (a stored line break, an escape
    /// sequence, a bidirectional override) are written as escapes (`\n`, `\u{1B}`).
    static func printable(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.properties.generalCategory == .control || scalar.properties.generalCategory == .format
                && !(0x200C...0x200D).contains(scalar.value):
                out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// A TRACK message readably: `+ 3 "Batch 7731 expires"` (new), `~ 3 "…"` (changed),
    /// `- 3` (gone).
    static func trackLine(_ message: TrackMessage) -> String {
        let quoted = "\"" + message.text.replacingOccurrences(of: "\"", with: "\\\"") + "\""
        switch message.event {
        case .new: return "+ \(message.id) \(quoted)"
        case .changed: return "~ \(message.id) \(quoted)"
        case .gone: return "- \(message.id)"
        }
    }

    /// One line per DEVICE.
    static func devices(_ message: DevicesMessage) -> [String] {
        message.devices.map { device in
            let info = device.info
            // Since proto_minor 5 `name` is the camera's name (its `device`), `card` the driver's.
            var parts = [info.name ?? info.path, info.state.rawValue]
            if let name = info.name, name != info.path { parts.append("path \(info.path)") }
            if let format = info.format { parts.append(format) }
            if let width = info.width, let height = info.height { parts.append("\(width)x\(height)") }
            if let fps = info.fps { parts.append("\(fixed(fps, 1)) fps") }
            parts.append("orientation \(device.orientation.exif) (\(device.orientation.name))")
            parts.append("camera \(device.cameraPosition.rawValue)")
            if device.watched { parts.append("watched") }
            if let card = info.card { parts.append("\"\(card)\"") }
            if let layout = info.layout { parts.append("layout \(layout)") }  // proto_minor 7
            if let languages = info.languages {  // proto_minor 10: lang auto
                parts.append("lang auto (installed: \(languages.filter { $0 != "osd" }.joined(separator: ", ")))")
            }
            if let zones = info.zones {
                for zone in zones { parts.append("zone \(zone.name) \(zone.rect.x),\(zone.rect.y),\(zone.rect.width),\(zone.rect.height)" + (zone.warning.map { " (\($0))" } ?? "")) }
            }
            if let error = info.error { parts.append("error: \(error)") }
            if let warning = info.warning { parts.append("warning: \(warning)") }
            return parts.joined(separator: "  ")
        }
    }

    /// STATUS as a few lines.
    static func status(_ message: StatusMessage) -> [String] {
        var out = ["lectord \(message.release), up \(fixed(message.uptime, 1)) s, "
                   + "\(message.clients) clients, \(message.watchers) watching"]
        for device in message.devices {
            var line = "\(device.name ?? device.path): \(device.state.rawValue)"
            switch device.runningReason {  // proto_minor 13
            case "rules": line += " (runs for its rules)"
            case "always_on": line += " (always on)"
            case "watched": line += " (watched)"
            default: break
            }
            line += ", captured \(device.captured) recognized \(device.recognized)"
            line += " dropped \(device.dropped) rejected \(device.rejected)"
            line += ", \(fixed(device.captureFPS, 1)) fps captured, \(fixed(device.recognizeFPS, 1)) fps recognized"
            if let recognize = device.recognizeMilliseconds {
                line += ", recognize p50 \(fixed(recognize.p50, 1)) ms p99 \(fixed(recognize.p99, 1)) ms"
            }
            if let latency = device.latencyMilliseconds {
                line += ", latency p50 \(fixed(latency.p50, 1)) ms p99 \(fixed(latency.p99, 1)) ms"
            }
            out.append(line)
        }
        return out
    }

    /// ORIENTATION as "DEVICE: orientation N (name)".
    static func orientation(_ message: OrientationMessage) -> String {
        "\(message.device): orientation \(message.orientation.exif) (\(message.orientation.name))"
            + (message.automaticOrientation ? ", rotation auto (the turn is found from the text)" : "")
    }
}
