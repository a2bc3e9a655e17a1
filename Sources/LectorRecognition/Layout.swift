import LectorDetector
import LectorEngine

/// How the whole frame is laid out into lines before Tesseract reads them.
public enum Layout: String, CaseIterable, Equatable, Sendable, CustomStringConvertible {
    /// Tesseract's own page layout (`--psm`) on the whole frame.
    case tesseract
    /// Lines found by the text-line detector, each read by Tesseract as a single line.
    case detector
    /// The detector when its model is installed (and this build has it) and the page
    /// segmentation mode is the automatic one (3); Tesseract's layout otherwise.
    case auto

    public var description: String { rawValue }
}

/// The layout a recognizer runs, once `auto` is resolved.
public enum ResolvedLayout: Equatable, Sendable {
    case tesseract
    /// The detector, with the model at `modelPath`.
    case detector(modelPath: String)

    /// The layout `options` ask for on this machine.
    /// - Returns: the layout, and for `auto` without the detector, why (said once in the log).
    /// - Throws: ``RecognitionError/detectorUnavailable(_:)`` for `detector` when it cannot run.
    public static func resolve(_ options: RecognizerOptions) throws(RecognitionError) -> (layout: ResolvedLayout, reason: String?) {
        switch options.layout {
        case .tesseract:
            return (.tesseract, nil)
        case .detector, .auto:
            let why: String
            if !TextLineDetector.isBuilt {
                why = DetectorError.unavailable.description
            } else if options.layout == .auto && options.pageSegmentation != 3 {
                return (.tesseract, nil)  // a page segmentation mode asked for: Tesseract's layout
            } else {
                do {
                    return (.detector(modelPath: try DetectorModel.locate(explicit: options.detectorModel)), nil)
                } catch {
                    why = error.description
                }
            }
            if options.layout == .detector { throw .detectorUnavailable(why) }
            return (.tesseract, why)
        }
    }

    /// `tesseract` or `detector`.
    public var name: String {
        switch self {
        case .tesseract: "tesseract"
        case .detector: "detector"
        }
    }
}
