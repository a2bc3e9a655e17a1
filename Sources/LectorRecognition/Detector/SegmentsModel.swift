import Foundation

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
