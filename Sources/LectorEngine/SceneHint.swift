/// What the recognizer is told about the scene a frame shows (from the live-text
/// stack): frames of one generation show one still scene, moved by a shift. The
/// detector layout re-reads the lines it found in that scene; deskew reuses the angle
/// it estimated for it.
public struct SceneHint: Equatable, Sendable {
    /// The stack's generation: equal generations show the same still scene.
    public var generation: Int
    /// The frame's shift from the stack's reference, in upright pixels.
    public var dx: Int
    public var dy: Int
    /// How the frame was turned upright (its EXIF value): a new orientation is a new
    /// scene for the recognizer, though the stack goes on.
    public var orientation: Int
    /// Whether the stack had filled (its clearest image of the scene).
    public var full: Bool

    public init(generation: Int, dx: Int, dy: Int, orientation: Int = 1, full: Bool = false) {
        self.generation = generation
        self.dx = dx
        self.dy = dy
        self.orientation = orientation
        self.full = full
    }
}
