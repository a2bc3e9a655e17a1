#if canImport(CTextDetector)
import CTextDetector
#endif

/// Why ONNX Runtime could not load or run a network.
public enum OnnxError: Error, Equatable, Sendable, CustomStringConvertible {
    /// This lectord was built without ONNX Runtime.
    case unavailable
    /// The runtime's environment could not be made (a library older than the header).
    case runtimeFailed(String)
    /// The network could not be loaded: ONNX Runtime's reason.
    case loadFailed(String)
    /// A run failed: ONNX Runtime's reason.
    case runFailed(String)

    public var description: String {
        switch self {
        case .unavailable:
            "this lectord was built without ONNX Runtime (libonnxruntime-dev on Debian 13, or scripts/setup's copy of "
                + "PyPI's on Debian 12) or without OpenCV's imgproc (libopencv-imgproc-dev)"
        case let .runtimeFailed(reason), let .loadFailed(reason), let .runFailed(reason): reason
        }
    }
}

/// One network loaded in ONNX Runtime: the only Swift file that calls the runtime
/// (through CTextDetector's lector_onnx.h). Owns its C session, freed in deinit; every
/// session shares the process's one runtime environment, made by the first session.
///
/// A session runs on one thread inside each operator and none between them (the
/// recognizer pool's threads are the parallelism). Not thread-safe: one run at a time.
public final class OnnxSession {
    /// How much ONNX Runtime rewrites the network's graph when it loads it.
    public enum Optimization: Int32, CaseIterable, Sendable {
        case none = 0, basic, extended, all
    }

    /// Whether this build has ONNX Runtime.
    public static var isBuilt: Bool {
        #if canImport(CTextDetector)
        true
        #else
        false
        #endif
    }

    /// The runtime library's version ("1.32.0"), or nil without ONNX Runtime.
    public static var runtimeVersion: String? {
        #if canImport(CTextDetector)
        String(cString: lector_onnx_version())
        #else
        nil
        #endif
    }

    #if canImport(CTextDetector)
    /// The process's environment (never freed: sessions may be made until the end).
    private final class Environment: @unchecked Sendable {
        let handle: OpaquePointer?
        let failure: String?

        init() {
            var error = [CChar](repeating: 0, count: 512)
            handle = lector_onnx_create(&error, error.count)
            failure = handle == nil ? OnnxSession.message(error) : nil
        }
    }

    private static let environment = Environment()
    private let handle: OpaquePointer
    #endif

    /// The model file loaded.
    public let modelPath: String

    /// Loads the network at `modelPath`.
    /// - Parameters:
    ///   - threads: threads inside an operator (1: the pool's threads are the parallelism).
    ///   - optimization: the graph optimizations (measured: `.all` is the cheapest run).
    /// - Throws: ``OnnxError/unavailable`` without ONNX Runtime, ``OnnxError/runtimeFailed(_:)``,
    ///   ``OnnxError/loadFailed(_:)``.
    ///
    /// The corresponding C functions are `lector_onnx_create` (once) and `lector_onnx_session_create`.
    public init(modelPath: String, threads: Int = 1, optimization: Optimization = .all) throws(OnnxError) {
        self.modelPath = modelPath
        #if canImport(CTextDetector)
        guard let runtime = Self.environment.handle else { throw .runtimeFailed(Self.environment.failure ?? "ONNX Runtime failed") }
        var error = [CChar](repeating: 0, count: 512)
        guard let handle = lector_onnx_session_create(runtime, modelPath, Int32(max(threads, 1)), optimization.rawValue,
                                                      &error, error.count) else {
            throw .loadFailed(Self.message(error))
        }
        self.handle = handle
        #else
        throw .unavailable
        #endif
    }

    /// Loads the network at `modelPath` (``init(modelPath:threads:optimization:)``), its
    /// failures said as the caller's error: `unavailable` without ONNX Runtime, else
    /// `failed` with ONNX Runtime's reason.
    public static func load<Failure: Error>(modelPath: String, threads: Int, optimization: Optimization, unavailable: Failure,
                                            failed: (String) -> Failure) throws(Failure) -> OnnxSession {
        do {
            return try OnnxSession(modelPath: modelPath, threads: threads, optimization: optimization)
        } catch .unavailable {
            throw unavailable
        } catch {
            throw failed(error.description)
        }
    }

    deinit {
        #if canImport(CTextDetector)
        lector_onnx_session_destroy(handle)
        #endif
    }

    /// Runs the network on `input` (row-major, dimensions `shape`) and gives `body` the
    /// output's values and dimensions (the session's memory: valid only inside `body`).
    /// - Throws: ``OnnxError/runFailed(_:)``.
    ///
    /// The corresponding C function is `lector_onnx_session_run`.
    public func run<Result>(_ input: [Float], shape: [Int],
                            _ body: (UnsafeBufferPointer<Float>, [Int]) -> Result) throws(OnnxError) -> Result {
        #if canImport(CTextDetector)
        precondition(input.count == shape.reduce(1, *), "the input's shape")
        var error = [CChar](repeating: 0, count: 512)
        var output: UnsafePointer<Float>?
        var outputShape = [Int64](repeating: 0, count: Int(LECTOR_ONNX_MAX_RANK))
        let dimensions = shape.map(Int64.init)
        let rank = input.withUnsafeBufferPointer { values in
            lector_onnx_session_run(handle, values.baseAddress, dimensions, Int32(dimensions.count), &output, &outputShape,
                                    &error, error.count)
        }
        guard rank > 0, let output else { throw .runFailed(Self.message(error)) }
        let outputDimensions = outputShape.prefix(Int(rank)).map { Int($0) }
        return body(UnsafeBufferPointer(start: output, count: outputDimensions.reduce(1, *)), outputDimensions)
        #else
        throw .unavailable
        #endif
    }

    private static func message(_ error: [CChar]) -> String {
        String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
