import LectorSystem

extension OptionTable {
    /// Parses a command line (without the program name) into `root`, for a program
    /// whose options all set one value.
    /// - Parameters:
    ///   - unknown: the error for an argument the table does not know.
    /// - Returns: the flags given (their main spelling).
    /// - Throws: ``UsageError`` naming the flag: unknown, refused, a value that does not fit.
    public func parse<Root>(_ arguments: [String], into root: inout Root,
                            unknown: (String) -> UsageError) throws(UsageError) -> Set<String> where Entry == Option<Root> {
        var given: Set<String> = []
        var scanner = ArgumentScanner(arguments)
        while let argument = scanner.next() {
            if let refusal = refusedFlags[argument] { throw UsageError(refusal) }
            guard let option = option(flag: argument) else { throw unknown(argument) }
            given.insert(option.flag)
            let text = option.spec.isSwitch ? String(try scanner.flag(argument)) : try scanner.value(for: argument)
            do {
                try option.access.set(&root, text)
            } catch {
                throw UsageError("\(argument) \(error.message)")
            }
        }
        return given
    }

    /// lectord's words for an unknown argument: `unknown option --x`, `unexpected argument 'x'`.
    public static func unknownArgument(_ argument: String) -> UsageError {
        UsageError(argument.hasPrefix("-") ? "unknown option \(argument)" : "unexpected argument '\(argument)'")
    }
}
