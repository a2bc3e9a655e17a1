import LectorProtocol

/// Which engine reads a detected line under `--engine auto`: the neural line recognizer
/// where it reads better, Tesseract where it reads as well and costs a fifth.
///
/// Chosen by measurement (scripts/eval-realworld.py --engines on
/// ../shared/testdata/realworld, 508 detector lines, 2026-12-02): Tesseract alone read
/// documents at 0.943 recall / 0.960 precision, 9/22 scene words, 13/40 plates in car
/// photos, 30/60 plate crops, 15 ms a line; the neural recognizer alone 0.956 / 0.982,
/// 15/22, 31/40, 54/60, 92 ms (Latin model). Tesseract first and the neural recognizer
/// where Tesseract's line confidence is below 0.90 read 0.959 / 0.988, 15/22, 31/40,
/// 52/60; sending short lines (a plate, a number: shorter than 4× their thickness)
/// straight to the neural recognizer read 54/60 crops as well, at 70 ms a line (63 on
/// document lines, where most lines stop at Tesseract).
package enum LinePolicy {
    /// Lines shorter than this many times their thickness go to the neural recognizer
    /// first (Tesseract reads plates and short signs poorly).
    static let shortLineRatio = 4.0
    /// A line Tesseract read with a mean word confidence below this is read again by the
    /// neural recognizer once every line has a reading (``DetectorLayout``), whose reading is kept (0.5: 0.949 docs, 42/60 crops; 0.8: 0.954,
    /// 50/60; 0.95: 0.956, 54/60 but 1.6× the cost on documents).
    static let rereadBelow = 0.90

    /// The neural recognizer reads a line lengthened by this fraction of its thickness at
    /// each end: the detector's quads cut plates' last character short (627WW for 627WWI,
    /// 002HH for 002HHM in the car photos); 0.15, 0.3 and 0.5 each read both whole.
    static let neuralLengthening = 0.15
    /// The segments engine reads a line lengthened by this fraction of its thickness at its
    /// end (and by ``neuralLengthening`` at its start): a pump's display has a wide gap
    /// before the thin `1` of `.01`, where the detector's quad ends (`530` for 53.01).
    /// Measured on the pump photos (../shared/testdata/meters, the committed network):
    /// of the first 40, 0.15 at both ends reads 25, 0.6 at the end 28 (0.9 and 1.2 also
    /// 28); 0.5 or 1.0 at both ends 23 (a lit frame's edge before the line read as `1`),
    /// 0 at the start with 0.6 at the end 24. Of all 300: 0.15 reads 153, 0.35 151, 0.6
    /// 155 (a last digit lost 28 → 15 times, but a digit read in the gap 20 → 30).
    /// Measured again with the network fine-tuned on the photos (2-fold cross-validated:
    /// each half read by the network fine-tuned on the other half, 2026-12-07): 0.6 reads
    /// 182 of 300, 1.0 190 (11 photos gained, 9 of them a last digit read now; 3 lost),
    /// 1.5 190. With 1.0 at the end, 0.3 at the start reads 194 and 0.5 192, but each
    /// moves 30 photos either way: not kept (the start stays ``neuralLengthening``).
    static let segmentsTrailing = 1.0

    /// The quad the segments engine reads for the detected line `quad`: lengthened by
    /// ``neuralLengthening`` of its thickness at its start and ``segmentsTrailing`` at its
    /// end (lector-bench's display lines cut the same).
    package static func segmentsLine(_ quad: LineQuad) -> LineQuad {
        quad.lengthened(before: neuralLengthening * quad.thickness, after: segmentsTrailing * quad.thickness)
    }

    /// Whether the neural recognizer reads a line of this shape (``DetectorLayout`` reads
    /// every line with Tesseract first, the cheap first reading, then these again).
    static func neuralFirst(_ quad: LineQuad) -> Bool {
        quad.length < shortLineRatio * quad.thickness
    }

    /// Whether Tesseract's reading of a line (its words, their mean `confidence`) is read
    /// again by the neural recognizer: the line read unsure (below ``rereadBelow``), or a
    /// word running digits into letters read unsure. Tesseract joins a number and its unit
    /// across a narrow space ("500g" at 0.80–0.87 in a line at 0.91–0.93, on tests/live's
    /// 16 px label "Net weight 500 g", where the neural recognizer reads "500 g" at 1.0);
    /// a track announced so stayed so. Rereading every line with a word below 0.90
    /// instead cost 56 % more on the document lines for no word more
    /// (scripts/eval-realworld.py --engines, 2026-12-03, Latin model: 69.6 ms against
    /// 44.7 a document line, 419 lines read again against 393; the digits-and-letters
    /// rule read no line more on the realworld sets).
    static func rereads(_ words: [TextWord], confidence: Double) -> Bool {
        confidence < rereadBelow
            || words.contains { $0.confidence < rereadBelow && $0.text.contains(where: \.isNumber) && $0.text.contains(where: \.isLetter) }
    }
}
