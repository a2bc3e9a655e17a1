import Glibc

/// Writes whole lines to a file descriptor (standard output for `--stdout`),
/// retrying on EINTR and short writes.
public enum LineWriter {
    /// Writes `bytes` and a newline.
    /// - Throws: the failing write's ``SystemError`` (EPIPE when the reader went away).
    public static func writeLine(_ bytes: [UInt8], to descriptor: Int32) throws(SystemError) {
        var line = bytes
        line.append(UInt8(ascii: "\n"))
        var offset = 0
        while offset < line.count {
            let written = line.withUnsafeBytes { raw in
                Glibc.write(descriptor, raw.baseAddress! + offset, raw.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw SystemError.current("write")
            }
            offset += written
        }
    }
}
