import LectorProtocol

/// Which words of a read line are said (published in TEXT, spoken by a reading aid, seen
/// by a rule): the neural line recognizer's words it read unsure of are left out, and a
/// line left without words with them (issue 46).
///
/// The neural recognizer reads something from any crop the detector hands it (a texture,
/// a logo, text too small or blurred to read), and reads it with low character
/// probabilities: on ICDAR 2015 frames most words it read below 0.8 were not in the scene
/// (``minimumNeuralConfidence``). Tesseract's words are kept from 0.1
/// (``DetectorLayout/minimumWordConfidence``): its confidences are not comparable, and
/// higher thresholds cost document words for little scene precision.
///
/// Only what is said changes: the scene keeps every reading (a line read unsure now may
/// read sure in the next frames), so a live camera's tracks, the scene's change test and
/// the direction vote see what they saw before.
enum UnsureWords {
    /// A neural word whose mean character probability is below this is not said.
    /// Measured on 100 ICDAR 2015 frames (scene-ic15, one read each) and the realworld
    /// sets, 2026-12-07 (docs/PERFORMANCE.md): see there for the thresholds tried.
    static let minimumNeuralConfidence = 0.8

    /// The words of a line read by `engine` ("neural" or "tesseract") that are said.
    static func said(_ words: [TextWord], engine: String) -> [TextWord] {
        guard engine == "neural" else { return words }
        return words.filter { $0.confidence >= minimumNeuralConfidence }
    }
}
