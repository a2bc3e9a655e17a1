import LectorSystem

extension OptionTable {
    /// Parses a configuration file without sections (`key = value` lines, the keys of
    /// the table) into `root`, for a program whose options all set one value.
    /// - Returns: the keys given.
    /// - Throws: ``ConfigError`` at the line: a section, a refused, unknown or repeated
    ///   key, a value that does not fit.
    public func parseFile<Root>(_ text: String, path: String, into root: inout Root) throws(ConfigError) -> Set<String>
    where Entry == Option<Root> {
        var seen: [String: Int] = [:]
        for (number, line) in try ConfigText.lines(text, path: path) {
            guard case let .setting(key, value) = line else {
                let name = (defaultConfigPath ?? path).split(separator: "/").last.map(String.init) ?? path
                throw ConfigError(path: path, line: number, key: nil, message: "\(name) has no sections; write key = value lines")
            }
            func fail(_ message: String) -> ConfigError { ConfigError(path: path, line: number, key: key, message: message) }
            if let refusal = refusedKeys[key] { throw fail(refusal) }
            if let earlier = seen[key] { throw fail("given twice (first on line \(earlier))") }
            seen[key] = number
            guard let option = option(key: key) else { throw fail("unknown key; known: \(keys.joined(separator: ", "))") }
            do { try option.access.set(&root, value) } catch { throw fail(error.message) }
        }
        return Set(seen.keys)
    }
}
