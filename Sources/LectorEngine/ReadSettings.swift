/// What one read may change on a shared Tesseract engine: the page segmentation mode
/// and the characters it may report. A zone's profile is read with them on the engine
/// of its language, so zones that differ only in these share one engine.
public struct ReadSettings: Hashable, Sendable {
    /// Tesseract's page segmentation mode (7: one line).
    public var pageSegmentation: Int
    /// The only characters it may report (`tessedit_char_whitelist`); nil: any.
    public var whitelist: String?

    public init(pageSegmentation: Int, whitelist: String? = nil) {
        self.pageSegmentation = pageSegmentation
        self.whitelist = whitelist
    }
}
