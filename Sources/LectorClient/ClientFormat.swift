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
    static func textLines(_ message: JSONValue) -> [String] {
        let device = message["device"]?.stringValue ?? "?"
        var out: [String] = []
        for block in message["blocks"]?.arrayValue ?? [] {
            if let lines = block["lines"]?.arrayValue {
                for line in lines {
                    out.append("\(device) \(fixed(line["confidence"]?.doubleValue)) \(line["text"]?.stringValue ?? "")")
                }
            } else {
                for line in (block["text"]?.stringValue ?? "").split(separator: "\n") {
                    out.append("\(device) \(fixed(block["confidence"]?.doubleValue)) \(line)")
                }
            }
        }
        return out
    }

    /// One line per DEVICE.
    static func devices(_ message: JSONValue) -> [String] {
        (message["devices"]?.arrayValue ?? []).map { device in
            var parts = [device["path"]?.stringValue ?? "?", device["state"]?.stringValue ?? "?"]
            if let format = device["format"]?.stringValue { parts.append(format) }
            if let width = device["width"]?.intValue, let height = device["height"]?.intValue { parts.append("\(width)x\(height)") }
            if let fps = device["fps"]?.doubleValue { parts.append("\(fixed(fps, 1)) fps") }
            if let exif = device["orientation"]?["exif"]?.intValue, let name = device["orientation"]?["name"]?.stringValue {
                parts.append("orientation \(exif) (\(name))")
            }
            if let position = device["camera_position"]?.stringValue { parts.append("camera \(position)") }
            if device["watched"]?.boolValue == true { parts.append("watched") }
            if let name = device["name"]?.stringValue { parts.append("\"\(name)\"") }
            if let error = device["error"]?.stringValue { parts.append("error: \(error)") }
            return parts.joined(separator: "  ")
        }
    }

    /// STATUS as a few lines.
    static func status(_ message: JSONValue) -> [String] {
        var out = ["lectord \(message["release"]?.stringValue ?? "?"), up \(fixed(message["uptime"]?.doubleValue, 1)) s, "
                   + "\(message["clients"]?.intValue ?? 0) clients, \(message["watchers"]?.intValue ?? 0) watching"]
        for device in message["devices"]?.arrayValue ?? [] {
            var line = "\(device["path"]?.stringValue ?? "?"): \(device["state"]?.stringValue ?? "?")"
            line += ", captured \(device["captured"]?.intValue ?? 0) recognized \(device["recognized"]?.intValue ?? 0)"
            line += " dropped \(device["dropped"]?.intValue ?? 0) rejected \(device["rejected"]?.intValue ?? 0)"
            line += ", \(fixed(device["capture_fps"]?.doubleValue, 1)) fps captured, \(fixed(device["recognize_fps"]?.doubleValue, 1)) fps recognized"
            if let recognize = device["recognize_ms"] {
                line += ", recognize p50 \(fixed(recognize["p50"]?.doubleValue, 1)) ms p99 \(fixed(recognize["p99"]?.doubleValue, 1)) ms"
            }
            if let latency = device["latency_ms"] {
                line += ", latency p50 \(fixed(latency["p50"]?.doubleValue, 1)) ms p99 \(fixed(latency["p99"]?.doubleValue, 1)) ms"
            }
            out.append(line)
        }
        return out
    }

    /// ORIENTATION as "DEVICE: orientation N (name)".
    static func orientation(_ message: JSONValue) -> String {
        let exif = message["orientation"]?["exif"]?.intValue ?? 0
        let name = message["orientation"]?["name"]?.stringValue ?? "?"
        return "\(message["device"]?.stringValue ?? "?"): orientation \(exif) (\(name))"
    }
}
