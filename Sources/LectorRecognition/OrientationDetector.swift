import LectorEngine
import LectorImaging
import LectorProtocol
import LectorSystem

/// Finds the quarter turn that makes a captured frame's text upright (`--rotation
/// auto`): Tesseract's orientation and script detection (OSD, `osd.traineddata` from
/// Debian's `tesseract-ocr-osd`) on the captured frame, halved only beyond
/// ``detectSide`` (OSD misjudges small text).
///
/// One per camera; synchronous and not thread-safe (``AutoOrientation`` lets one
/// recognizer at a time use it).
public final class OrientationDetector {
    /// The long side of the copy OSD reads: frames up to 2560 px are read whole (OSD
    /// misjudged 1920-px document photos halved, and judged them all right whole).
    public static let detectSide = 2560
    /// Estimates below this confidence are not acted on (the turn in force stays): real
    /// pages and document photos measured 3.8 and up, 4000×4000 noise 2.01.
    public static let minimumConfidence = 3.0
    /// The check runs on an engine thread of its own, under the frame's deadline and
    /// stop, like a read (OSD cannot be stopped midway: one that runs late is abandoned).
    private let engine: IsolatedRecognizer

    /// Loads Tesseract's OSD model.
    /// - Parameter dataPath: the folder with `osd.traineddata` (nil: Tesseract's default).
    /// - Throws: ``RecognitionError/initializationFailed(language:dataPath:)`` when the
    ///   model is missing (install `tesseract-ocr-osd`).
    public init(dataPath: String? = nil) throws(RecognitionError) {
        engine = try IsolatedRecognizer(language: "osd", dataPath: dataPath, pageSegmentation: 0)
    }

    /// Stops a check in progress (or the next one); any thread.
    public func cancel() { engine.cancel() }

    /// Lets checks run again after ``cancel()``.
    public func resume() { engine.resume() }

    /// The clockwise turn (before any mirror) that makes the text of captured image
    /// `luma` upright, or nil when OSD could not tell or was unsure.
    /// - Parameter mirrored: whether the camera's orientation mirrors the turned image
    ///   (a front camera): the text is then read mirrored back first.
    /// - Parameter deadline: milliseconds the check may take (the camera's `--deadline-ms`).
    public func detect(_ luma: GrayImage, mirrored: Bool, deadline: Int) throws(RecognitionError) -> OrientationEstimate? {
        guard let estimate = try estimate(luma, mirrored: mirrored, deadline: deadline),
              estimate.confidence >= Self.minimumConfidence else { return nil }
        return estimate
    }

    /// As ``detect(_:mirrored:deadline:)``, whatever the confidence.
    /// - Throws: ``RecognitionError/deadlineExceeded(milliseconds:)`` when the check ran
    ///   late and was abandoned, ``RecognitionError/busy`` while an abandoned one still
    ///   runs, ``RecognitionError/cancelled`` after ``cancel()``.
    public func estimate(_ luma: GrayImage, mirrored: Bool, deadline: Int) throws(RecognitionError) -> OrientationEstimate? {
        var image = luma.reduced(toLongSide: Self.detectSide)
        let factor = GrayImage.reduction(width: luma.width, height: luma.height, toLongSide: Self.detectSide)
        if mirrored {
            var flipped = GrayImage(width: 0, height: 0)
            OrientationTransform(orientation: .upMirrored, sourceWidth: image.width, sourceHeight: image.height).apply(image, into: &flipped)
            image = flipped
        }
        guard var estimate = try engine.detectOrientation(image, resolution: max(70, 300 / factor), deadline: deadline) else { return nil }
        // Turning the mirrored image by r, then mirroring, equals mirroring after turning
        // the captured image by −r.
        if mirrored { estimate.rotation = (360 - estimate.rotation) % 360 }
        return estimate
    }
}
