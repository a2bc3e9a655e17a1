import LectorProtocol
import LectorSystem

/// What a stacked frame carries besides its pixels.
public struct StackedFrameInfo: Sendable, Equatable {
    /// Frames the image averages.
    public var stacked: Int
    /// The stack's generation: equal generations show the same still scene.
    public var generation: Int
    /// The newest frame's shift from the stack's reference, in captured pixels.
    public var shift: EstimatedShift
    /// Block means of the stack (the gate's signature).
    public var signature: SceneSignature
    /// The format the camera delivered (the stacked frame itself is GREY).
    public var capturedFormat: PixelFormat
    /// Whether the stack holds as many frames as it can (its image no longer improves).
    public var isFull: Bool
    /// The newest frame as the camera delivered it, kept only while colour previews are
    /// asked for (the stacked image itself is gray).
    public var captured: CapturedFrame?

    public init(stacked: Int, generation: Int, shift: EstimatedShift, signature: SceneSignature, capturedFormat: PixelFormat,
                isFull: Bool = true, captured: CapturedFrame? = nil) {
        self.isFull = isFull
        self.captured = captured
        self.stacked = stacked
        self.generation = generation
        self.shift = shift
        self.signature = signature
        self.capturedFormat = capturedFormat
    }
}
