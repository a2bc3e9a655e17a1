import Foundation
import LectorProtocol
import LectorSystem

/// Where systemd listens for a service's notifications: `$NOTIFY_SOCKET`.
public enum NotifyAddress: Equatable, Sendable, CustomStringConvertible {
    /// A socket file (systemd's own is `/run/systemd/notify`).
    case path(String)
    /// A name in Linux's abstract socket namespace (`$NOTIFY_SOCKET` starts with `@`).
    case abstract(String)

    /// Parses a `$NOTIFY_SOCKET` value: an absolute path, or `@name`. Returns nil for
    /// anything else (empty, relative, `vsock:` addresses, too long for `sun_path`).
    public init?(environmentValue value: String) {
        guard value.utf8.count < 108 else { return nil }  // sizeof(sun_path), with room for NUL
        if value.hasPrefix("@"), value.count > 1 {
            self = .abstract(String(value.dropFirst()))
        } else if value.hasPrefix("/") {
            self = .path(value)
        } else {
            return nil
        }
    }

    public var description: String {
        switch self {
        case let .path(path): path
        case let .abstract(name): "@" + name
        }
    }

    /// The `sun_path` bytes: the path, or the abstract name after a leading NUL.
    var socketAddress: [UInt8] {
        switch self {
        case let .path(path): Array(path.utf8)
        case let .abstract(name): [0] + Array(name.utf8)
        }
    }
}

/// One state change told to systemd (sd_notify(3)'s well-known assignments).
public enum ServiceNotification: Equatable, Sendable {
    /// Start-up is finished: `READY=1`.
    case ready
    /// Shutdown has begun: `STOPPING=1`.
    case stopping
    /// Keep-alive ping: `WATCHDOG=1`.
    case watchdog
    /// A one-line human-readable state for `systemctl status`: `STATUS=…`.
    case status(String)
    /// Sets the main process: `MAINPID=…`.
    case mainPID(Int32)

    /// The assignment as sent. A status loses line breaks, which would end the assignment.
    public var assignment: String {
        switch self {
        case .ready: "READY=1"
        case .stopping: "STOPPING=1"
        case .watchdog: "WATCHDOG=1"
        case let .status(text):
            "STATUS=" + String(text.map { $0.isNewline ? " " : $0 })
        case let .mainPID(pid): "MAINPID=\(pid)"
        }
    }
}

/// Why a notification could not be delivered.
public enum NotifyError: Error, Equatable, CustomStringConvertible {
    /// The datagram could not be sent (systemd gone: ECONNREFUSED/ENOENT; EMSGSIZE).
    case send(address: NotifyAddress, SystemError)

    public var description: String {
        switch self {
        case let .send(address, error): "cannot notify systemd at \(address): \(error)"
        }
    }
}

/// Sends sd_notify(3) messages with the documented datagram protocol, without libsystemd:
/// newline-separated assignments in one `AF_UNIX`/`SOCK_DGRAM` datagram to
/// `$NOTIFY_SOCKET`. systemd identifies the sender by its credentials, so only the main
/// process (or one allowed by `NotifyAccess=`) is heard.
public struct SystemdNotifier: Sendable {
    public let address: NotifyAddress

    public init(address: NotifyAddress) { self.address = address }

    /// The notifier for this process's `$NOTIFY_SOCKET`, or nil when it is not set (not
    /// started by systemd with `Type=notify`, or `NotifyAccess=none`) or not usable.
    ///
    /// - Parameter environment: The process environment (a parameter for tests).
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> SystemdNotifier? {
        guard let value = environment["NOTIFY_SOCKET"], let address = NotifyAddress(environmentValue: value) else { return nil }
        return SystemdNotifier(address: address)
    }

    /// Sends the notifications together, in one datagram (so `READY=1` and the first
    /// `STATUS=` arrive at once).
    ///
    /// - Throws: ``NotifyError/send(address:_:)`` when the datagram cannot be sent.
    public func send(_ notifications: [ServiceNotification]) throws(NotifyError) {
        guard !notifications.isEmpty else { return }
        let payload = Array(notifications.map(\.assignment).joined(separator: "\n").utf8)
        do {
            // Never blocks for long: at most a second when systemd's queue is full.
            try Syscalls.sendDatagram(payload, to: address.socketAddress, timeout: 1)
        } catch {
            throw .send(address: address, error)
        }
    }

    /// Sends one notification. - Throws: as ``send(_:)-swift.method``.
    public func send(_ notification: ServiceNotification) throws(NotifyError) {
        try send([notification])
    }
}

/// The watchdog systemd asked for (`WatchdogSec=`), from `$WATCHDOG_USEC` and
/// `$WATCHDOG_PID` (sd_watchdog_enabled(3)).
public enum WatchdogSettings {
    /// The interval within which systemd wants a `WATCHDOG=1`, or nil when there is no
    /// watchdog for this process: `$WATCHDOG_USEC` unset, not a positive number, or
    /// `$WATCHDOG_PID` set to another process.
    ///
    /// - Parameters:
    ///   - environment: The process environment.
    ///   - processID: This process's id, compared with `$WATCHDOG_PID`.
    /// - Returns: The interval in seconds.
    public static func interval(environment: [String: String] = ProcessInfo.processInfo.environment,
                                processID: Int32 = Syscalls.processID) -> Double? {
        guard let text = environment["WATCHDOG_USEC"], let microseconds = UInt64(text), microseconds > 0 else { return nil }
        if let owner = environment["WATCHDOG_PID"] {
            guard let pid = Int32(owner), pid == processID else { return nil }
        }
        return Double(microseconds) / 1_000_000
    }
}
