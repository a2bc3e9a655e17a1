import LectorEngine

/// Which engine reads the lines the text-line detector finds (`--engine`, config key
/// `engine`, per camera and per zone).
public enum LineEngine: String, CaseIterable, Equatable, Sendable, CustomStringConvertible {
    /// Each where it reads better for its cost (``LinePolicy``): the neural line
    /// recognizer when its model is installed and covers `--lang`, Tesseract otherwise.
    case auto
    /// Tesseract alone, one line at a time (page segmentation 7).
    case tesseract
    /// The neural line recognizer (PP-OCRv6's, ``NeuralLineEngine``) on every line.
    case neural
    /// The seven-segment and LCD digit reader on every line: the project's own small
    /// network (``SegmentsModel``, digits and the decimal point), run by the same
    /// ``NeuralLineEngine``.
    case segments

    public var description: String { rawValue }
}

/// The engines a recognizer reads lines with, once `--engine`, `--engine-model` and
/// `--lang` are resolved on this machine.
public struct ResolvedEngine: Equatable, Sendable {
    /// What was asked for.
    public var choice: LineEngine
    /// The neural model to load; nil: Tesseract alone.
    public var neuralModel: String?
    /// With `auto` (or a zone's `neural` that cannot run) reading without the neural
    /// recognizer: why (said once in the log).
    public var note: String?

    /// Tesseract alone.
    public static let tesseract = ResolvedEngine(choice: .tesseract, neuralModel: nil, note: nil)

    /// Resolves `choice` for `language` (Tesseract's `eng+deu` form).
    /// - Parameters:
    ///   - model: `--engine-model` (nil: the installed model fitting `language`).
    /// - Throws: ``RecognitionError/engineUnavailable(_:)`` for `neural` when it cannot
    ///   run; `auto` then reads with Tesseract alone and says why in ``note``.
    public static func resolve(_ choice: LineEngine, language: String, model: String?) throws(RecognitionError) -> ResolvedEngine {
        guard choice != .tesseract else { return .tesseract }
        if choice == .segments { return try segments(model: model) }
        let why: String
        if !NeuralLineEngine.isBuilt {
            why = NeuralEngineError.unavailable.description
        } else if let variant = NeuralModel.variant(forLanguage: language) {
            do {
                return ResolvedEngine(choice: choice, neuralModel: try NeuralModel.locate(explicit: model, variant: variant), note: nil)
            } catch {
                why = error.description
            }
        } else {
            why = "the neural line recognizer reads Latin script, Chinese and Japanese, not --lang \(language)"
        }
        if choice == .neural { throw .engineUnavailable(why) }
        return ResolvedEngine(choice: .tesseract, neuralModel: nil, note: why)
    }

    /// The seven-segment reader: its model (`model` when given), whatever the language.
    /// - Throws: ``RecognitionError/engineUnavailable(_:)`` when it cannot run.
    static func segments(model: String?) throws(RecognitionError) -> ResolvedEngine {
        guard NeuralLineEngine.isBuilt else { throw .engineUnavailable(NeuralEngineError.unavailable.description) }
        do {
            return ResolvedEngine(choice: .segments, neuralModel: try SegmentsModel.locate(explicit: model), note: nil)
        } catch {
            throw .engineUnavailable(error.description)
        }
    }
}

extension ResolvedEngine {
    /// The neural line recognizer `choice` asks for with `language`, loaded (one
    /// network per call: each recognizer thread reads with its own).
    /// - Returns: the recognizer, or nil with why (`auto`: Tesseract reads alone).
    /// - Throws: ``RecognitionError/engineUnavailable(_:)`` for `neural` and `segments` when it cannot run.
    public static func load(_ choice: LineEngine, language: String, model: String?) throws(RecognitionError)
        -> (engine: NeuralLineEngine?, note: String?) {
        let resolved = try resolve(choice, language: language, model: model)
        guard let path = resolved.neuralModel else { return (nil, resolved.note) }
        do {
            return (try NeuralLineEngine(modelPath: path, threads: DetectorLayout.networkThreads), nil)
        } catch {
            if choice != .auto { throw .engineUnavailable(error.description) }
            return (nil, error.description)
        }
    }
}
