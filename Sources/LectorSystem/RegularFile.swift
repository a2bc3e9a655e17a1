import Glibc

/// Why a file was not read.
public enum FileReadError: Error, Equatable, Sendable, CustomStringConvertible {
    case notFound(path: String)
    /// A FIFO, device, socket or directory: only regular files are read (a FIFO would
    /// block the reader for ever).
    case notRegular(path: String, kind: String)
    case tooLarge(path: String, bytes: Int, limit: Int)
    case system(path: String, SystemError)

    public var description: String {
        switch self {
        case let .notFound(path): "\(path) does not exist"
        case let .notRegular(path, _), let .tooLarge(path, _, _), let .system(path, _): "cannot read \(path): \(reason)"
        }
    }

    /// What is wrong, without the path.
    public var reason: String {
        switch self {
        case .notFound: "it does not exist"
        case let .notRegular(_, kind): "it is a \(kind), not a regular file"
        case let .tooLarge(_, bytes, limit): "it holds \(bytes) bytes, over the limit of \(limit)"
        case let .system(_, error): String(cString: strerror(error.errno))
        }
    }
}

/// Reads whole regular files without ever blocking on something that is not one: the
/// file is opened with O_NONBLOCK and its type checked on the open descriptor (no race
/// between the check and the read), then read in full up to a size limit.
public enum RegularFile {
    /// The contents of `path`.
    /// - Parameter maximumBytes: a larger file is refused before it is read.
    /// The corresponding C functions are `open`, `fstat`, `read` and `close`.
    public static func read(_ path: String, maximumBytes: Int) throws(FileReadError) -> [UInt8] {
        var descriptor: Int32
        repeat {
            descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        } while descriptor < 0 && errno == EINTR
        guard descriptor >= 0 else {
            let error = SystemError.current("open")
            if error.errno == ENOENT { throw .notFound(path: path) }
            throw .system(path: path, error)
        }
        defer { _ = close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .system(path: path, SystemError.current("fstat")) }
        let type = info.st_mode & S_IFMT
        guard type == S_IFREG else { throw .notRegular(path: path, kind: kindName(type)) }
        let size = Int(info.st_size)
        guard size <= maximumBytes else { throw .tooLarge(path: path, bytes: size, limit: maximumBytes) }
        var bytes = [UInt8](repeating: 0, count: size)
        var offset = 0
        while offset < size {
            let count = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress! + offset, size - offset) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .system(path: path, SystemError.current("read"))
            }
            if count == 0 { break }  // the file shrank meanwhile
            offset += count
        }
        return Array(bytes[0..<offset])
    }

    /// The contents of `path` as UTF-8 text (configuration files), read as ``read(_:maximumBytes:)``
    /// reads; nil when the bytes are not UTF-8.
    public static func readText(_ path: String, maximumBytes: Int = 1 << 20) throws(FileReadError) -> String? {
        let bytes = try read(path, maximumBytes: maximumBytes)
        return String(validating: bytes, as: UTF8.self)
    }

    private static func kindName(_ type: mode_t) -> String {
        switch type {
        case S_IFIFO: "FIFO"
        case S_IFDIR: "directory"
        case S_IFCHR: "character device"
        case S_IFBLK: "block device"
        case S_IFSOCK: "socket"
        default: "special file"
        }
    }
}
