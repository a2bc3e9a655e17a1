#if canImport(CTextDetector)
import CTextDetector
#endif
import LectorImaging
import LectorProtocol
import LectorSystem

/// Why the text-line detector is not there or failed.
public enum DetectorError: Error, Equatable, Sendable, CustomStringConvertible {
    /// This lectord was built without OpenCV's DNN module.
    case unavailable
    /// No model file where lectord looks (the paths searched).
    case modelNotFound(searched: [String])
    /// The model file given (`--detector-model`) is not a readable file.
    case modelUnreadable(String)
    /// OpenCV could not load the model: its reason.
    case loadFailed(String)
    /// Detection failed on a frame: OpenCV's reason.
    case detectionFailed(String)

    public var description: String {
        switch self {
        case .unavailable:
            "this lectord was built without the text-line detector: it needs OpenCV's DNN module when it is built "
                + "(libopencv-dnn-dev and libopencv-imgproc-dev, which scripts/setup installs)"
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

/// PP-OCRv4's DB text detector, run by OpenCV's DNN module: the only Swift file that
/// calls it (through CTextDetector's C interface). Owner of the C handle, freed in deinit.
///
/// Not thread-safe: one detection at a time (``DetectorPool`` hands detectors out).
public final class TextLineDetector {
    #if canImport(CTextDetector)
    private let handle: OpaquePointer
    #endif
    /// The model file loaded.
    public let modelPath: String
    public let parameters: DetectorParameters

    /// Whether this build has the detector (OpenCV's DNN module was found at build time).
    public static var isBuilt: Bool {
        #if canImport(CTextDetector)
        true
        #else
        false
        #endif
    }

    /// Loads the model at `modelPath`.
    /// - Parameters:
    ///   - threads: OpenCV's worker threads (process-wide; 0: OpenCV's choice).
    ///   - parameters: how the probability map becomes lines.
    /// - Throws: ``DetectorError/unavailable`` without OpenCV, ``DetectorError/loadFailed(_:)``.
    ///
    /// The corresponding C function is `lector_td_create`.
    public init(modelPath: String, threads: Int = 1, parameters: DetectorParameters = DetectorParameters()) throws(DetectorError) {
        self.modelPath = modelPath
        self.parameters = parameters
        #if canImport(CTextDetector)
        var error = [CChar](repeating: 0, count: 512)
        guard let handle = lector_td_create(modelPath, Int32(threads), &error, error.count) else {
            throw .loadFailed(Self.message(error))
        }
        self.handle = handle
        #else
        throw .unavailable
        #endif
    }

    deinit {
        #if canImport(CTextDetector)
        lector_td_destroy(handle)
        #endif
    }

    /// Finds the text lines of `image`, top to bottom.
    /// - Parameter maximumSide: the longer side the image is shrunk to at most; nil:
    ///   ``DetectorParameters/maximumSide``. A size the network did not run at last is
    ///   read afresh first (measured: ≤ 0.1 s of one core, against 0.6 s for a detection
    ///   at 960 px; a network per size would hold about 140 MB more).
    /// - Returns: each line's rotated rectangle in `image`'s pixels, with its score.
    /// - Throws: ``DetectorError/detectionFailed(_:)`` when OpenCV fails.
    ///
    /// The corresponding C function is `lector_td_detect`.
    public func detect(_ image: GrayImage, maximumSide: Int? = nil) throws(DetectorError) -> [DetectedLine] {
        #if canImport(CTextDetector)
        guard image.width > 0, image.height > 0 else { return [] }
        var params = Self.cParameters(parameters)
        if let maximumSide { params.max_side = Int32(maximumSide) }
        var boxes = [lector_td_box](repeating: lector_td_box(), count: Self.capacity)
        var error = [CChar](repeating: 0, count: 512)
        let count = image.pixels.withUnsafeBufferPointer { pixels in
            lector_td_detect(handle, pixels.baseAddress, Int32(image.width), Int32(image.height), Int32(image.width),
                             &params, &boxes, Int32(boxes.count), nil, nil, &error, error.count)
        }
        guard count >= 0 else { throw .detectionFailed(Self.message(error)) }
        return boxes.prefix(Int(count)).map(Self.line)
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
