/// One zone of a camera as DEVICES lists it (proto_minor 5): a named rectangle of the
/// upright image read with its own recognition profile.
public struct ZoneInfo: Equatable, Sendable {
    /// The zone's own name (`reading` for `[zone meter/reading]`), TEXT blocks' `zone`.
    public var name: String
    /// Where it lies in the upright image.
    public var rect: PixelBox
    /// Tesseract's page segmentation mode for it.
    public var pageSegmentation: Int
    /// The characters it may report, when restricted.
    public var whitelist: String?
    public var language: String
    /// Why it is not read (its rectangle lies outside the upright image), or what of it
    /// is not (it extends beyond); absent when it fits.
    public var warning: String?

    public init(name: String, rect: PixelBox, pageSegmentation: Int, whitelist: String? = nil, language: String,
                warning: String? = nil) {
        self.name = name
        self.rect = rect
        self.pageSegmentation = pageSegmentation
        self.whitelist = whitelist
        self.language = language
        self.warning = warning
    }

    init(json: JSONValue, messageClass: String, path: String) throws(ProtocolError) {
        let m = try MemberReader(json, messageClass: messageClass, path: path)
        self.init(name: try m.required("name", m.string), rect: try m.required("rect", m.box),
                  pageSegmentation: try m.required("psm", m.int), whitelist: try m.string("whitelist"),
                  language: try m.required("lang", m.string), warning: try m.string("warning"))
    }

    var json: JSONValue {
        var object = JSONObjectBuilder()
        object.add("name", name)
        object.add("rect", boxJSON(rect))
        object.add("psm", pageSegmentation)
        object.add("whitelist", whitelist)
        object.add("lang", language)
        object.add("warning", warning)
        return object.value
    }
}
