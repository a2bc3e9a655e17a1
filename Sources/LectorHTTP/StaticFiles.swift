import Foundation
import LectorSystem

/// The page's files (HTML, CSS, JS, SVG), read once at start from a directory. Only
/// these names are ever served: a request path is looked up, never joined to a
/// directory, so `..` cannot reach anything else.
public struct StaticFiles: Sendable {
    public struct File: Sendable {
        public let contentType: String
        public let bytes: [UInt8]
    }

    /// Files by request path (`/index.html`, `/app.js`, ...).
    public let files: [String: File]

    /// Reads every regular file directly in `directory`.
    public init(directory: String) throws(UsageError) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else {
            throw UsageError("cannot read the page directory \(directory)")
        }
        var files: [String: File] = [:]
        for name in names where !name.hasPrefix(".") {
            guard let type = Self.types[(name as NSString).pathExtension.lowercased()],
                  let data = FileManager.default.contents(atPath: directory + "/" + name) else { continue }
            files["/" + name] = File(contentType: type, bytes: Array(data))
        }
        guard files["/index.html"] != nil else { throw UsageError("\(directory) has no index.html") }
        self.files = files
    }

    /// The file for a request path (`/` is `/index.html`).
    public func file(for path: String) -> File? { files[path == "/" ? "/index.html" : path] }

    private static let types = [
        "html": "text/html; charset=utf-8", "css": "text/css; charset=utf-8",
        "js": "text/javascript; charset=utf-8", "svg": "image/svg+xml", "png": "image/png",
    ]

    /// Where the page is when `--www` is not given: next to the executable (the build's
    /// resource bundle), or PREFIX/share/lector/www for an installed `PREFIX/bin/lector-http`.
    public static func standardDirectory(executable: String) -> String? {
        let resolved = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? executable
        let binDirectory = (resolved as NSString).deletingLastPathComponent
        let candidates = [
            binDirectory + "/Lector_lector-http.resources/www",
            (binDirectory as NSString).deletingLastPathComponent + "/share/lector/www",
            (binDirectory as NSString).deletingLastPathComponent + "/../share/lector/www",
        ]
        return candidates.first { FileManager.default.fileExists(atPath: $0 + "/index.html") }
    }
}
