#if canImport(CTextDetector)
import CTextDetector
#endif
import LectorImaging
import LectorProtocol
import LectorSystem

/// Why the text-line detector is not there or failed.
public enum DetectorError: Error, Equatable, Sendable, CustomStringConvertible {
    /// This lectord was built without ONNX Runtime or OpenCV's imgproc.
    case unavailable
    /// No model file where lectord looks (the paths searched).
    case modelNotFound(searched: [String])
    /// The model file given (`--detector-model`) is not a readable file.
    case modelUnreadable(String)
    /// ONNX Runtime could not load the model: its reason.
    case loadFailed(String)
    /// Detection failed on a frame: ONNX Runtime's or OpenCV's reason.
    case detectionFailed(String)

    public var description: String {
        switch self {
        case .unavailable:
            "this lectord was built without the text-line detector: it needs ONNX Runtime and OpenCV's imgproc when it "
                + "is built (scripts/setup installs them)"
        case let .modelNotFound(searched):
            "no text-line detector model (\(DetectorModel.fileName)) in \(searched.joined(separator: ", ")); "
                + "scripts/fetch-detector-model installs it"
        case let .modelUnreadable(path): "the text-line detector model \(path) is not a readable file"
        case let .loadFailed(reason): reason
        case let .detectionFailed(reason): "text-line detection failed: \(reason)"
        }
    }
}

/// DB's settings: how the probability map becomes line boxes (PaddleOCR's defaults).
public struct DetectorParameters: Equatable, Sendable {
    /// The image is shrunk so that its longer side is at most this before detection
    /// (measured on ../shared/testdata/realworld's 1920 px document photos: 0.856 of the
    /// words at 960, 0.942 at 1280, where small print is still found).
    public var maximumSide = 1280
    /// A smaller image is enlarged so that its longer side is this (0: never).
    public var minimumSide = 0
    /// A map pixel is text above this probability.
    public var threshold: Float = 0.3
    /// A region is a line when its mean probability is at least this.
    public var boxThreshold: Float = 0.5
    /// How far a region is grown back (DB's unclip ratio).
    public var unclipRatio: Float = 1.6

    public init() {}
}

/// PP-OCRv4's DB text detector: the image resized and normalized, the network run in
/// ONNX Runtime (``OnnxSession``), its probability map made into line boxes (DB's
/// post-processing). The only Swift file that calls CTextDetector's
/// lector_text_detector.h.
///
/// Not thread-safe: one detection at a time (``DetectorPool`` hands detectors out).
public final class TextLineDetector {
    private let session: OnnxSession
    /// The model file loaded.
    public var modelPath: String { session.modelPath }
    public let parameters: DetectorParameters

    /// Whether this build has the detector (ONNX Runtime and OpenCV's imgproc were found
    /// at build time).
    public static var isBuilt: Bool { OnnxSession.isBuilt }

    /// Loads the model at `modelPath`.
    /// - Parameters:
    ///   - threads: ONNX Runtime's threads inside an operator (1: one core).
    ///   - parameters: how the probability map becomes lines.
    ///   - optimization: ONNX Runtime's graph optimizations.
    /// - Throws: ``DetectorError/unavailable`` without ONNX Runtime, ``DetectorError/loadFailed(_:)``.
    public init(modelPath: String, threads: Int = 1, parameters: DetectorParameters = DetectorParameters(),
                optimization: OnnxSession.Optimization = .all) throws(DetectorError) {
        self.parameters = parameters
        session = try OnnxSession.load(modelPath: modelPath, threads: threads, optimization: optimization,
                                       unavailable: DetectorError.unavailable, failed: DetectorError.loadFailed)
    }

    /// Finds the text lines of `image`, top to bottom.
    /// - Parameter maximumSide: the longer side the image is shrunk to at most; nil:
    ///   ``DetectorParameters/maximumSide``.
    /// - Returns: each line's rotated rectangle in `image`'s pixels, with its score.
    /// - Throws: ``DetectorError/detectionFailed(_:)`` when the network or OpenCV fails.
    ///
    /// The corresponding C functions are `lector_td_input_size`, `lector_td_input` and
    /// `lector_td_boxes_from_map`.
    public func detect(_ image: GrayImage, maximumSide: Int? = nil) throws(DetectorError) -> [DetectedLine] {
        #if canImport(CTextDetector)
        guard image.width > 0, image.height > 0 else { return [] }
        var params = Self.cParameters(parameters)
        if let maximumSide { params.max_side = Int32(maximumSide) }
        var width: Int32 = 0, height: Int32 = 0
        lector_td_input_size(Int32(image.width), Int32(image.height), &params, &width, &height)
        var error = [CChar](repeating: 0, count: 512)
        var prepared: Int32 = -1
        // Written whole by lector_td_input (a float needs no zeroing first: 11 MB at 1280 px).
        let count = 3 * Int(width) * Int(height)
        let input = [Float](unsafeUninitializedCapacity: count) { values, initialized in
            prepared = image.pixels.withUnsafeBufferPointer { pixels in
                lector_td_input(pixels.baseAddress, Int32(image.width), Int32(image.height), Int32(image.width), width, height,
                                values.baseAddress, &error, error.count)
            }
            initialized = count
        }
        guard prepared == 0 else { throw .detectionFailed(Self.message(error)) }
        var boxes = [lector_td_box](repeating: lector_td_box(), count: Self.capacity)
        let found: Int32
        do {
            found = try session.run(input, shape: [1, 3, Int(height), Int(width)]) { map, shape in
                // 1 × 1 × H × W: the probability map at the input's size.
                guard shape == [1, 1, Int(height), Int(width)] else {
                    error = Array("the network's output is not a 1×1×H×W probability map".utf8CString)
                    return -1
                }
                return lector_td_boxes_from_map(map.baseAddress, width, height, Int32(image.width), Int32(image.height),
                                                &params, &boxes, Int32(boxes.count), &error, error.count)
            }
        } catch {
            throw .detectionFailed(error.description)
        }
        guard found >= 0 else { throw .detectionFailed(Self.message(error)) }
        return boxes.prefix(Int(found)).map(Self.line)
        #else
        throw .unavailable
        #endif
    }

    /// DB's post-processing alone: the lines of a probability map (`width` × `height`,
    /// row after row), scaled to an image of `imageWidth` × `imageHeight`. For tests.
    ///
    /// The corresponding C function is `lector_td_boxes_from_map`.
    public static func lines(fromMap map: [Float], width: Int, height: Int, imageWidth: Int, imageHeight: Int,
                             parameters: DetectorParameters = DetectorParameters()) throws(DetectorError) -> [DetectedLine] {
        precondition(map.count == width * height, "map size")
        #if canImport(CTextDetector)
        var params = cParameters(parameters)
        var boxes = [lector_td_box](repeating: lector_td_box(), count: capacity)
        var error = [CChar](repeating: 0, count: 512)
        let count = map.withUnsafeBufferPointer { values in
            lector_td_boxes_from_map(values.baseAddress, Int32(width), Int32(height), Int32(imageWidth), Int32(imageHeight),
                                     &params, &boxes, Int32(boxes.count), &error, error.count)
        }
        guard count >= 0 else { throw .detectionFailed(message(error)) }
        return boxes.prefix(Int(count)).map(line)
        #else
        throw .unavailable
        #endif
    }

    /// At most this many lines per frame.
    static let capacity = 1000

    private static func message(_ error: [CChar]) -> String {
        String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    #if canImport(CTextDetector)
    private static func cParameters(_ parameters: DetectorParameters) -> lector_td_params {
        var params = lector_td_params()
        lector_td_default_params(&params)
        params.max_side = Int32(parameters.maximumSide)
        params.min_side = Int32(parameters.minimumSide)
        params.threshold = parameters.threshold
        params.box_threshold = parameters.boxThreshold
        params.unclip_ratio = parameters.unclipRatio
        return params
    }

    private static func line(_ box: lector_td_box) -> DetectedLine {
        DetectedLine(centerX: Double(box.cx), centerY: Double(box.cy), width: Double(box.width), height: Double(box.height),
                     angle: Double(box.angle), score: Double(box.score))
    }
    #endif
}
