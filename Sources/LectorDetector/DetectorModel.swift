import Foundation

/// Where lectord finds the text-line detector's model when `--detector-model` does not
/// say: `$LECTOR_DATA_DIR/models`, then `lector/models` under `$XDG_DATA_HOME` (default
/// `~/.local/share`) and under each of `$XDG_DATA_DIRS` (default
/// `/usr/local/share:/usr/share`), where scripts/fetch-detector-model and
/// scripts/install.sh put it.
public enum DetectorModel {
    /// The model's file name (scripts/fetch-detector-model installs it under this name).
    public static let fileName = "ch_PP-OCRv4_det.onnx"
    /// The name it was installed under before (that of the OpenCV-read model before it):
    /// still found, after ``fileName``, in each folder.
    public static let legacyFileName = "ch_PP-OCRv4_det_opencv.onnx"

    /// The folders searched, in order, for `environment`.
    public static func searchFolders(environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        var folders: [String] = []
        if let data = environment["LECTOR_DATA_DIR"], !data.isEmpty { folders.append(data + "/models") }
        if let home = environment["XDG_DATA_HOME"], !home.isEmpty {
            folders.append(home + "/lector/models")
        } else if let home = environment["HOME"], !home.isEmpty {
            folders.append(home + "/.local/share/lector/models")
        }
        let shared = environment["XDG_DATA_DIRS"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/share:/usr/share"
        folders += shared.split(separator: ":").map { "\($0)/lector/models" }
        var seen = Set<String>()
        return folders.filter { seen.insert($0).inserted }
    }

    /// The model to load: `explicit` when given (it must exist), else the first file
    /// named ``fileName`` (or ``legacyFileName``) in ``searchFolders(environment:)``.
    /// - Throws: ``DetectorError/modelNotFound(searched:)`` naming where it looked, or
    ///   ``DetectorError/modelUnreadable(_:)`` for an `explicit` path that is no readable file.
    public static func locate(explicit: String?,
                              environment: [String: String] = ProcessInfo.processInfo.environment) throws(DetectorError) -> String {
        if let explicit {
            guard isReadableFile(explicit) else { throw .modelUnreadable(explicit) }
            return explicit
        }
        let candidates = searchFolders(environment: environment).flatMap { [$0 + "/" + fileName, $0 + "/" + legacyFileName] }
        guard let found = candidates.first(where: isReadableFile) else { throw .modelNotFound(searched: searchFolders(environment: environment)) }
        return found
    }

    private static func isReadableFile(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
            && FileManager.default.isReadableFile(atPath: path)
    }
}
