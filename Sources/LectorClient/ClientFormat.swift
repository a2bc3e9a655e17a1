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
            var parts = [info.path, info.state.rawValue]
            if let format = info.format { parts.append(format) }
            if let width = info.width, let height = info.height { parts.append("\(width)x\(height)") }
            if let fps = info.fps { parts.append("\(fixed(fps, 1)) fps") }
            parts.append("orientation \(device.orientation.exif) (\(device.orientation.name))")
            parts.append("camera \(device.cameraPosition.rawValue)")
            if device.watched { parts.append("watched") }
            if let name = info.name { parts.append("\"\(name)\"") }
            if let error = info.error { parts.append("error: \(error)") }
            return parts.joined(separator: "  ")
        }
    }

    /// STATUS as a few lines.
    static func status(_ message: StatusMessage) -> [String] {
        var out = ["lectord \(message.release), up \(fixed(message.uptime, 1)) s, "
                   + "\(message.clients) clients, \(message.watchers) watching"]
        for device in message.devices {
            var line = "\(device.path): \(device.state.rawValue)"
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
    }
}
