import LectorSystem

/// `lector speak`'s own options: their help and how each is read.
extension SpeakSettings {
    /// The options only `lector speak` takes.
    static let options: Set<String> = ["--device", "--voice", "--rate", "--min-confidence", "--repeat-after", "--wav"]

    /// `lector speak --help`, without the options every command takes.
    static let usage = """
        Usage: lector speak [--device D] [--voice V] [--rate WPM] [--min-confidence C] [--repeat-after SECONDS] [--wav DIR]

        Says each line of text through espeak-ng when it settles (TRACK new or changed), in reading order, in the
        voice of the line's language; a new scene cuts short what is being said. Runs until interrupted.

          --device D               The camera (needed when there are several).
          --voice V                This espeak-ng voice for every line (default: from each line's language; en).
          --rate WPM               Words per minute, 80-450 (default \(SpeakSettings.defaultRate)).
          --min-confidence C       Leave out lines whose track confidence is below C, 0-1.
          --repeat-after SECONDS   Say the same text again only this long after it was last said whole (default \(Int(SpeakSettings.defaultRepeatAfter))).
          --wav DIR                Write numbered WAV files to DIR (in real time, cut where speech is cut) instead of playing.
        """

    /// Reads `option` (one of ``options``) and its value from `scanner`.
    /// - Throws: when the value is missing or out of range.
    mutating func take(_ option: String, from scanner: inout ArgumentScanner) throws(UsageError) {
        switch option {
        case "--device": device = try scanner.value(for: option)
        case "--voice":
            let name = try scanner.value(for: option)
            guard !name.isEmpty, !name.hasPrefix("-") else { throw UsageError("--voice needs an espeak-ng voice name, such as en-gb") }
            voice = name
        case "--rate": rate = try scanner.integer(for: option, in: 80...450)
        case "--min-confidence": minimumConfidence = try scanner.number(for: option, in: 0...1)
        case "--repeat-after": repeatAfter = try scanner.number(for: option, in: 0...86400)
        case "--wav":
            let directory = try scanner.value(for: option)
            guard !directory.isEmpty else { throw UsageError("--wav needs a folder, not an empty path") }
            wavDirectory = directory
        default: throw UsageError("unknown option \(option) for 'lector speak'")
        }
    }
}
