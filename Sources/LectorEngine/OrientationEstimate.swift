/// What an orientation check said about an image.
public struct OrientationEstimate: Sendable, Equatable {
    /// Clockwise degrees (0, 90, 180 or 270) that turn the image upright.
    public var rotation: Int
    /// Tesseract's orientation confidence (it calls 15 reasonably confident).
    public var confidence: Double
    /// The script it saw, e.g. `Latin`.
    public var script: String?
    public var scriptConfidence: Double

    public init(rotation: Int, confidence: Double, script: String? = nil, scriptConfidence: Double = 0) {
        self.rotation = rotation
        self.confidence = confidence
        self.script = script
        self.scriptConfidence = scriptConfidence
    }
}
