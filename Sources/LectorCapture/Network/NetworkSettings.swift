import LectorProtocol

/// How one network camera is read: fixed for the camera's life.
public struct NetworkSettings: Sendable {
    public var url: NetworkCameraURL
    /// The password from `url_password_file`, used in place of the URL's own; never shown.
    public var password: String?
    public var transport: RTSPTransport = .tcp
    /// Snapshot endpoints are polled this often (`--fps`; default ``defaultSnapshotRate``).
    public var fps: Double?
    /// A camera that delivers nothing for this long is treated as lost.
    public var stallTimeout: Double = 3
    /// The longest a connection (connect, handshake, first picture) may take.
    public var openTimeout: Double = 10
    /// Hardware decoding (`hwdecode`, default off).
    public var hardwareDecoding: HardwareDecoding = .off
    /// The waits before reconnecting.
    public var retryBackoff = RetryBackoff()

    /// Snapshots a second when `--fps` is not given.
    public static let defaultSnapshotRate = 1.0

    public init(url: NetworkCameraURL) { self.url = url }

    /// The URL FFmpeg opens: with the password file's password when there is one.
    var address: String { password.map { url.withPassword($0) } ?? url.text }
}
