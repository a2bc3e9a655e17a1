import LectorOptions
import LectorProtocol

extension CodeFormat {
    /// Reads a `codes =` value (`on`, `off`, or formats) for the option table and zones.
    static let setParser = ValueParser<Set<CodeFormat>> { (text: String) throws(OptionValueError) -> Set<CodeFormat> in
        do throws(CodeFormatError) { return try CodeFormat.parseSet(text) } catch { throw OptionValueError(error.description) }
    }
}
