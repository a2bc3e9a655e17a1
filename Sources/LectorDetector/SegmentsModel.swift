import Foundation
import LectorEngine

/// The segments engine's network (`engine = segments`, issue 44): a small CTC line
/// recognizer of seven-segment and LCD digits that the project trains itself
/// (scripts/train-segments.py, from displays scripts/segment_displays.py renders), kept
/// in the repository as models/segments/lector-segments.onnx with its character list
/// beside it (`0`-`9` and `.`, one a line). scripts/setup and scripts/install.sh copy
/// both where the detector's model is (``DetectorModel/searchFolders(environment:)``).
///
/// It takes the line input every line model of ``NeuralLineEngine`` takes (48 px high,
/// three equal channels) and gives the same classes layout (blank, the characters,
/// space), so that CTC decoding, per-character confidences and boxes are the neural
/// engine's.
public enum SegmentsModel {
    /// The network's file name.
    public static let fileName = "lector-segments.onnx"

    /// The network to load: `explicit` when given (it must exist), else the first file
    /// named ``fileName`` in the detector model's folders.
    /// - Throws: ``NeuralEngineError/segmentsModelNotFound(searched:)`` naming where it
    ///   looked, or ``NeuralEngineError/modelUnreadable(_:)`` for an `explicit` path that
    ///   is no readable file.
    public static func locate(explicit: String?,
                              environment: [String: String] = ProcessInfo.processInfo.environment) throws(NeuralEngineError) -> String {
        if let explicit {
            guard NeuralModel.isReadableFile(explicit) else { throw .modelUnreadable(explicit) }
            return explicit
        }
        let folders = DetectorModel.searchFolders(environment: environment)
        guard let found = folders.map({ $0 + "/" + fileName }).first(where: NeuralModel.isReadableFile) else {
            throw .segmentsModelNotFound(searched: folders)
        }
        return found
    }
}

extension SegmentsModel {
    /// The network's characters, in class order (class 0 is blank, the last a space).
    public static let characters = (0...9).map(String.init) + ["."]

    /// A display has one decimal point at most, between digits: of the points `line`
    /// read, only the likeliest one with a digit on each side is kept (an unlit point's
    /// ghost, or a gap between segments, read as a point goes; so does a point before
    /// the first digit or after the last). Words left empty are dropped; the line's
    /// confidence is the mean of the symbols kept.
    public static func keepingOnePoint(_ line: CTCDecoding.Line) -> CTCDecoding.Line {
        let symbols = line.words.flatMap(\.symbols)
        guard symbols.contains(where: { $0.text == "." }) else { return line }
        let digits = symbols.indices.filter { symbols[$0].text != "." }
        guard let first = digits.first, let last = digits.last else { return CTCDecoding.Line(words: [], confidence: 0) }
        // Index into the flattened symbols of the point kept (nil: none).
        let kept = symbols.indices.filter { symbols[$0].text == "." && $0 > first && $0 < last }
            .max { symbols[$0].probability < symbols[$1].probability }
        var index = 0
        var words: [CTCDecoding.Word] = []
        for var word in line.words {
            word.symbols = word.symbols.filter { symbol in
                defer { index += 1 }
                return symbol.text != "." || index == kept
            }
            if !word.symbols.isEmpty { words.append(word) }
        }
        let probabilities = words.flatMap(\.symbols).map(\.probability)
        return CTCDecoding.Line(words: words, confidence: probabilities.isEmpty ? 0 : probabilities.reduce(0, +) / Double(probabilities.count))
    }
}
