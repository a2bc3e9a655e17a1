/// Writes whole lines to a file descriptor (standard output for `--stdout`), through
/// ``Syscalls/writeFile(_:from:)`` (which retries EINTR) until every byte is written.
public enum LineWriter {
    /// Writes `bytes` and a newline.
    /// - Throws: the failing write's ``SystemError`` (EPIPE when the reader went away).
    public static func writeLine(_ bytes: [UInt8], to descriptor: Int32) throws(SystemError) {
        var line = bytes
        line.append(UInt8(ascii: "\n"))
        var offset = 0
        while offset < line.count {
            let outcome = line.withUnsafeBytes { raw in
                Result { () throws(SystemError) in
                    try Syscalls.writeFile(descriptor, from: UnsafeRawBufferPointer(rebasing: raw[offset...]))
                }
            }
            switch try outcome.get() {
            case let .done(count): offset += count
            case .wouldBlock: _ = try Syscalls.waitWritable(descriptor, timeoutMilliseconds: -1)
            }
        }
    }
}
