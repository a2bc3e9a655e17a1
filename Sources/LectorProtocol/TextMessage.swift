/// A point in captured-frame pixels, written `[x,y]`.
public struct PixelPoint: Hashable, Sendable {
    public var x: Int
    public var y: Int

    public init(x: Int, y: Int) {
        self.x = x
        self.y = y
    }

    /// `[x,y]`
    public var json: JSONValue { .array([.int(x), .int(y)]) }
}

/// One element of a TEXT message's tree (a block, line, word or symbol): its text, its
/// box in upright pixels, its four corners in captured-frame pixels, its confidence and
/// language, and its children (nil: not written, at this message's detail level).
public struct TextElement: Equatable, Sendable {
    public var text: String
    public var box: PixelBox
    /// The box's corners in the captured frame: top-left, top-right, bottom-right,
    /// bottom-left of the upright box.
    public var corners: [PixelPoint]
    /// 0…1, three decimals on the wire.
    public var confidence: Double
    public var language: String?
    /// Lines of a block, words of a line, symbols of a word; nil when the detail level
    /// stops above them.
    public var children: [TextElement]?
    /// For a line: the id of the line track it was placed in (TRACK messages).
    public var track: String?
    /// For a block: the zone it was read in (proto_minor 5).
    public var zone: String?
    /// For a line: the line engine that read it, `tesseract` or `neural` (proto_minor 9);
    /// nil when Tesseract's own layout read the frame.
    public var engine: String?

    public init(text: String, box: PixelBox, corners: [PixelPoint], confidence: Double, language: String? = nil,
                children: [TextElement]? = nil, track: String? = nil, zone: String? = nil, engine: String? = nil) {
        self.engine = engine
        self.track = track
        self.zone = zone
        self.text = text
        self.box = box
        self.corners = corners
        self.confidence = confidence
        self.language = language
        self.children = children
    }

    /// The member holding the children of an element at `level`.
    static func childrenKey(of level: DetailLevel) -> String? {
        switch level {
        case .block: "lines"
        case .line: "words"
        case .word: "symbols"
        case .symbol: nil
        }
    }

    func json(at level: DetailLevel) -> JSONValue {
        var members = JSONObjectBuilder()
        members.add("text", text)
        members.add("box", boxJSON(box))
        members.add("corners", .array(corners.map(\.json)))
        members.add("confidence", confidence)
        members.add("language", language)
        members.add("track", track)
        members.add("zone", zone)
        members.add("engine", engine)
        if let children, let key = Self.childrenKey(of: level), let next = DetailLevel.allCases.first(where: { $0 > level }) {
            members.add(key, .array(children.map { $0.json(at: next) }))
        }
        return members.value
    }

    init(json: JSONValue, level: DetailLevel, messageClass: String, path: String) throws(ProtocolError) {
        let m = try MemberReader(json, messageClass: messageClass, path: path)
        let corners = try m.required("corners", m.points)
        var children: [TextElement]?
        if let key = Self.childrenKey(of: level), let next = DetailLevel.allCases.first(where: { $0 > level }) {
            children = try m.array(key) { (item, path) throws(ProtocolError) in
                try TextElement(json: item, level: next, messageClass: messageClass, path: path)
            }
        }
        self.init(text: try m.required("text", m.string), box: try m.required("box", m.box), corners: corners,
                  confidence: try m.required("confidence", m.double), language: try m.string("language"),
                  children: children, track: try m.string("track"), zone: try m.string("zone"), engine: try m.string("engine"))
    }
}

/// TEXT: what was read in one frame, as a tree of blocks → lines → words → symbols,
/// as deep as the subscription's detail level.
public struct TextMessage: ProtocolMessage {
    public static let messageClass = "TEXT"
    public var device: String
    public var sequence: UInt32
    /// Capture time, RFC 3339 UTC with milliseconds.
    public var time: String
    public var orientation: ImageOrientation
    /// Upright image size.
    public var width: Int
    public var height: Int
    /// All text: blocks and lines separated by newlines, words by spaces.
    public var text: String
    public var blocks: [TextElement]
    /// Tesseract's time for this frame.
    public var recognizeMilliseconds: Double
    /// Whether the orientation's quarter turn was found from the text (`"auto":true` in
    /// `orientation`, proto_minor 6).
    public var automaticOrientation: Bool
    /// Lines of the scene found but not read yet (proto_minor 8): the read ran out of
    /// time, and the text holds the lines read so far in this scene. 0 when the scene is
    /// read whole; on the wire `"partial":true` and `"unread"` only when above 0.
    public var unreadLines: Int

    public init(device: String, sequence: UInt32, time: String, orientation: ImageOrientation, width: Int, height: Int,
                text: String, blocks: [TextElement], recognizeMilliseconds: Double, automaticOrientation: Bool = false,
                unreadLines: Int = 0) {
        self.automaticOrientation = automaticOrientation
        self.unreadLines = unreadLines
        self.device = device
        self.sequence = sequence
        self.time = time
        self.orientation = orientation
        self.width = width
        self.height = height
        self.text = text
        self.blocks = blocks
        self.recognizeMilliseconds = recognizeMilliseconds
    }

    /// The message for `tree` down to `level`: children arrays are written (possibly
    /// empty) for every level above `level`, none below. Confidences are rounded to three
    /// decimals; `corners` maps an upright box to its four captured-frame corners;
    /// `lineTracks` gives each line's track id by the line's box.
    public init(device: String, sequence: UInt32, time: String, orientation: ImageOrientation, width: Int, height: Int,
                tree: RecognizedText, level: DetailLevel, recognizeMilliseconds: Double,
                lineTracks: [PixelBox: String] = [:], automaticOrientation: Bool = false, unreadLines: Int = 0,
                corners: (PixelBox) -> [PixelPoint]) {
        func element(_ text: String, _ box: PixelBox, _ confidence: Double, _ language: String? = nil, zone: String? = nil,
                     children: [TextElement]?, track: String? = nil, engine: String? = nil) -> TextElement {
            TextElement(text: text, box: box, corners: corners(box), confidence: (confidence * 1000).rounded() / 1000,
                        language: language, children: children, track: track, zone: zone, engine: engine)
        }
        let blocks = tree.blocks.map { block in
            element(block.text, block.box, block.confidence, block.language, zone: block.zone, children: level < .line ? nil : block.lines.map { line in
                element(line.text, line.box, line.confidence, children: level < .word ? nil : line.words.map { word in
                    element(word.text, word.box, word.confidence, children: level < .symbol ? nil : word.symbols.map {
                        element($0.text, $0.box, $0.confidence, children: nil)
                    })
                }, track: lineTracks[line.box], engine: line.engine)
            })
        }
        self.init(device: device, sequence: sequence, time: time, orientation: orientation, width: width, height: height,
                  text: tree.text, blocks: blocks, recognizeMilliseconds: recognizeMilliseconds,
                  automaticOrientation: automaticOrientation, unreadLines: unreadLines)
    }

    /// The deepest level the message holds (`block` when it holds no lines).
    public var level: DetailLevel {
        var level = DetailLevel.block
        var elements = blocks
        while elements.contains(where: { $0.children != nil }), let next = DetailLevel.allCases.first(where: { $0 > level }) {
            level = next
            elements = elements.flatMap { $0.children ?? [] }
        }
        return level
    }

    public init(json: JSONValue) throws(ProtocolError) {
        let m = try MemberReader(message: json, class: Self.messageClass)
        self.init(device: try m.required("device", m.string), sequence: try m.sequence("seq"),
                  time: try m.required("time", m.string), orientation: try m.required("orientation", m.orientation),
                  width: try m.required("width", m.int), height: try m.required("height", m.int),
                  text: try m.required("text", m.string),
                  blocks: try m.required("blocks") { (key) throws(ProtocolError) in
                      try m.array(key) { (item, path) throws(ProtocolError) in
                          try TextElement(json: item, level: .block, messageClass: Self.messageClass, path: path)
                      }
                  },
                  recognizeMilliseconds: try m.required("recognize_ms", m.double),
                  automaticOrientation: try m.automaticOrientation("orientation"),
                  unreadLines: try m.int("unread") ?? 0)
    }

    public var json: JSONValue {
        var message = JSONObjectBuilder(class: Self.messageClass)
        message.add("device", device)
        message.add("seq", Int(sequence))
        message.add("time", time)
        message.add("orientation", orientationJSON(orientation, automatic: automaticOrientation))
        message.add("width", width)
        message.add("height", height)
        message.add("text", text)
        message.add("blocks", .array(blocks.map { $0.json(at: .block) }))
        message.add("recognize_ms", recognizeMilliseconds)
        if unreadLines > 0 {
            message.add("partial", true)
            message.add("unread", unreadLines)
        }
        return message.value
    }
}

/// FRAME: one processed frame's bookkeeping.
public struct FrameMessage: ProtocolMessage {
    public static let messageClass = "FRAME"
    public var device: String
    public var sequence: UInt32
    /// Capture time, RFC 3339 UTC with milliseconds.
    public var time: String
    /// The captured pixel format's FourCC.
    public var format: String
    /// Captured size.
    public var width: Int
    public var height: Int
    public var orientation: ImageOrientation
    public var captured: Int
    public var recognized: Int
    public var dropped: Int
    public var rejected: Int
    /// Frames the change gate skipped (absent from servers before 1.3).
    public var unchanged: Int?
    /// Frames the recognized image averages (absent without stacking).
    public var stacked: Int?
    /// Publish time minus capture time.
    public var latencyMilliseconds: Double
    public var recognizeMilliseconds: Double
    /// Everything else Lector spent on the frame.
    public var overheadMilliseconds: Double
    /// A focus figure: the variance of the Laplacian of the luma (proto_minor 2).
    public var sharpness: Double?
    /// The median height of the recognized words, upright pixels (proto_minor 2).
    public var characterHeight: Double?
    /// Whether the orientation's quarter turn was found from the text (proto_minor 6).
    public var automaticOrientation: Bool

    public init(device: String, sequence: UInt32, time: String, format: String, width: Int, height: Int,
                orientation: ImageOrientation, captured: Int, recognized: Int, dropped: Int, rejected: Int,
                latencyMilliseconds: Double, recognizeMilliseconds: Double, overheadMilliseconds: Double,
                sharpness: Double? = nil, characterHeight: Double? = nil,
                unchanged: Int? = nil, stacked: Int? = nil, automaticOrientation: Bool = false) {
        self.automaticOrientation = automaticOrientation
        self.sharpness = sharpness
        self.characterHeight = characterHeight
        self.unchanged = unchanged
        self.stacked = stacked
        self.device = device
        self.sequence = sequence
        self.time = time
        self.format = format
        self.width = width
        self.height = height
        self.orientation = orientation
        self.captured = captured
        self.recognized = recognized
        self.dropped = dropped
        self.rejected = rejected
        self.latencyMilliseconds = latencyMilliseconds
        self.recognizeMilliseconds = recognizeMilliseconds
        self.overheadMilliseconds = overheadMilliseconds
    }

    public init(json: JSONValue) throws(ProtocolError) {
        let m = try MemberReader(message: json, class: Self.messageClass)
        self.init(device: try m.required("device", m.string), sequence: try m.sequence("seq"),
                  time: try m.required("time", m.string), format: try m.required("format", m.string),
                  width: try m.required("width", m.int), height: try m.required("height", m.int),
                  orientation: try m.required("orientation", m.orientation),
                  captured: try m.required("captured", m.int), recognized: try m.required("recognized", m.int),
                  dropped: try m.required("dropped", m.int), rejected: try m.required("rejected", m.int),
                  latencyMilliseconds: try m.required("latency_ms", m.double),
                  recognizeMilliseconds: try m.required("recognize_ms", m.double),
                  overheadMilliseconds: try m.required("overhead_ms", m.double),
                  sharpness: try m.double("sharpness"), characterHeight: try m.double("char_height"),
                  unchanged: try m.int("unchanged"), stacked: try m.int("stacked"),
                  automaticOrientation: try m.automaticOrientation("orientation"))
    }

    public var json: JSONValue {
        var message = JSONObjectBuilder(class: Self.messageClass)
        message.add("device", device)
        message.add("seq", Int(sequence))
        message.add("time", time)
        message.add("format", format)
        message.add("width", width)
        message.add("height", height)
        message.add("orientation", orientationJSON(orientation, automatic: automaticOrientation))
        message.add("captured", captured)
        message.add("recognized", recognized)
        message.add("dropped", dropped)
        message.add("rejected", rejected)
        message.add("unchanged", unchanged)
        message.add("stacked", stacked)
        message.add("latency_ms", latencyMilliseconds)
        message.add("recognize_ms", recognizeMilliseconds)
        message.add("overhead_ms", overheadMilliseconds)
        message.add("sharpness", sharpness)
        message.add("char_height", characterHeight)
        return message.value
    }
}
