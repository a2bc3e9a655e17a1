/// The release of Lector's programs, reported by `--version`, VERSION and STATUS.
public enum LectorRelease {
    public static let version = "0.1.0"
}
