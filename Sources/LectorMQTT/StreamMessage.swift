import LectorProtocol

/// A stream message the bridge follows (TEXT, TRACK, DEVICES, MATCH, CODE), read for the members it
/// uses: a protocol peer may leave the others out (tests/mqtt's python peer does, and
/// writes TRACK ids as numbers), so these are not decoded as LectorProtocol's strict
/// messages. Replies to the bridge's own requests are (``Bridge``).
enum StreamMessage {
    /// TEXT or TRACK of `device`, for ``CameraText``.
    case text(device: String, JSONValue)
    case track(device: String, JSONValue)
    /// DEVICES: every camera lectord has.
    case devices([Listing])
    /// MATCH: a rule's reading (proto_minor 5; its members of 11 used when present).
    case match(MatchMessage)
    /// CODE of `device` (proto_minor 14): a QR code or barcode came into view; published as sent.
    case code(device: String)

    /// One camera of DEVICES.
    struct Listing {
        /// lectord's name for it: `name` from proto_minor 5 on, else `path`.
        var device: String
        var state: String?
        /// The orientation in force, shaped as the bridge publishes an ORIENTATION
        /// reply (without `class`); nil when the entry has no `orientation`.
        var orientation: JSONValue?
        /// The camera's rules (proto_minor 11); empty when it lists none.
        var rules: [RuleInfo] = []
        /// Whether the camera reads QR codes and barcodes: DEVICES' `codes` non-empty
        /// (proto_minor 15); true for every camera of an older lectord, which does not say.
        var readsCodes = true
    }

    /// The stream message in `json`, nil for another class (or one without its device).
    /// - Parameter protocolMinor: lectord's proto_minor (DEVICES' `name` counts from 5).
    init?(json: JSONValue, protocolMinor: Int) {
        switch json["class"]?.stringValue {
        case TextMessage.messageClass:
            guard let device = json["device"]?.stringValue else { return nil }
            self = .text(device: device, json)
        case TrackMessage.messageClass:
            guard let device = json["device"]?.stringValue else { return nil }
            self = .track(device: device, json)
        case DevicesMessage.messageClass:
            self = .devices((json["devices"]?.arrayValue ?? []).compactMap { entry in
                let name = protocolMinor >= 5 ? entry["name"]?.stringValue : nil
                guard let device = name ?? entry["path"]?.stringValue ?? entry["device"]?.stringValue else { return nil }
                return Listing(device: device, state: entry["state"]?.stringValue,
                               orientation: Self.orientation(of: entry, device: device),
                               rules: (entry["rules"]?.arrayValue ?? []).compactMap(Self.rule),
                               readsCodes: protocolMinor >= 15 ? entry["codes"]?.arrayValue?.isEmpty == false : true)
            })
        case MatchMessage.messageClass:
            guard let match = try? MatchMessage(json: json) else { return nil }
            self = .match(match)
        case CodeMessage.messageClass:
            guard let device = json["device"]?.stringValue else { return nil }
            self = .code(device: device)
        default:
            return nil
        }
    }

    /// A DEVICE entry's rule, or nil without a name.
    private static func rule(_ entry: JSONValue) -> RuleInfo? {
        guard let name = entry["name"]?.stringValue else { return nil }
        return RuleInfo(name: name, zone: entry["zone"]?.stringValue, known: entry["known"]?.boolValue ?? false,
                        meter: entry["meter"]?.boolValue ?? false, unit: entry["unit"]?.stringValue)
    }

    /// A DEVICE entry's orientation members, in the order of an ORIENTATION reply.
    private static func orientation(of entry: JSONValue, device: String) -> JSONValue? {
        guard let orientation = entry["orientation"] else { return nil }
        var object: [(String, JSONValue)] = [("device", .string(device)), ("orientation", orientation)]
        if let exif = orientation["exif"] { object.append(("exif", exif)) }
        for key in ["device_orientation", "camera_position", "rotation", "mirror"] {
            if let value = entry[key] { object.append((key, value)) }
        }
        return .object(object)
    }
}
