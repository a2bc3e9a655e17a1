import CMosquitto
import Foundation
import LectorSystem
import Synchronization

/// A libmosquitto call that failed: the call's name and libmosquitto's reason.
public struct MosquittoError: Error, Equatable, CustomStringConvertible {
    public let call: String
    public let code: Int32
    /// For MOSQ_ERR_ERRNO: the errno, read when the error was made (right after the call).
    public let system: SystemError?

    public init(call: String, code: Int32) {
        self.call = call
        self.code = code
        system = code == MOSQ_ERR_ERRNO.rawValue ? SystemError.current(call) : nil
    }

    public var description: String { "\(call): \(reason)" }
    /// libmosquitto's words for the code (errno's for MOSQ_ERR_ERRNO).
    public var reason: String { system?.reason ?? String(cString: mosquitto_strerror(code)) }
}

/// What libmosquitto's network thread reports, handed to ``MosquittoClient``'s handler.
public enum MosquittoEvent: Sendable {
    /// CONNACK arrived; `code` 0 is success, else the broker refused (the reason names why).
    case connected(code: Int32, reason: String)
    /// The connection ended; `expected` when this client asked for it.
    case disconnected(expected: Bool)
    /// A QoS 0 message was written to the socket, or a QoS 1/2 one acknowledged.
    case published(messageID: Int32)
    /// A message on a subscribed topic; `retained` when the broker kept it (delivered
    /// because of the subscription, not published now).
    case message(topic: String, payload: [UInt8], retained: Bool)
    /// A message whose payload is over ``MosquittoSettings/maximumPayload`` bytes: not copied.
    case oversized(topic: String, bytes: Int)
    /// A line of libmosquitto's own error log (TLS and connection failures).
    case error(String)
}

/// How to reach the broker.
public struct MosquittoSettings: Sendable {
    public var clientID: String
    public var host: String
    public var port: Int
    public var keepalive: Int = 30
    public var username: String?
    public var password: String?
    /// TLS when set: a CA file (or, with ``caPath``, a folder of CA certificates).
    public var tls: Bool = false
    public var caFile: String?
    public var caPath: String?
    public var certFile: String?
    public var keyFile: String?
    /// The last will: topic, payload, QoS, retained.
    public var will: (topic: String, payload: String, qos: Int32)?
    /// The largest packet the broker may send this client (MQTT 5's Maximum Packet Size,
    /// which the broker honours by not sending larger messages): nil, none (MQTT 3.1.1).
    public var maximumPacket: UInt32?
    /// Payloads larger than this are reported as ``MosquittoEvent/oversized(topic:bytes:)``
    /// without being copied.
    public var maximumPayload = Int.max
    /// Reconnect backoff in seconds: first delay and cap (doubling).
    public var reconnectDelay: (first: UInt32, maximum: UInt32) = (1, 30)

    public init(clientID: String, host: String, port: Int) {
        self.clientID = clientID
        self.host = host
        self.port = port
    }
}

/// One connection to an MQTT broker through libmosquitto's threaded interface: the
/// library's own thread connects, reconnects with backoff, reads and writes; callers
/// publish and subscribe from any thread. The only file that calls libmosquitto.
/// Owns its `struct mosquitto` and destroys it in ``close()``/`deinit`.
public final class MosquittoClient: @unchecked Sendable {
    private let handle: OpaquePointer
    private let handler: @Sendable (MosquittoEvent) -> Void
    private let maximumPayload: Int
    /// CONNECT's properties (MQTT 5), owned here; libmosquitto keeps a copy for reconnects.
    private var connectProperties: OpaquePointer?
    private let stopping = Atomic<Bool>(false)
    private let closed = Atomic<Bool>(false)
    private let started = Atomic<Bool>(false)
    private let finished = Atomic<Bool>(false)

    /// Initializes libmosquitto once per process.
    private static let library: Void = { mosquitto_lib_init(); return () }()

    /// Creates the client (not connected yet).
    /// - Parameter handler: called on libmosquitto's thread for every event; it must not block.
    public init(settings: MosquittoSettings, handler: @escaping @Sendable (MosquittoEvent) -> Void) throws(MosquittoError) {
        _ = Self.library
        self.handler = handler
        maximumPayload = settings.maximumPayload
        guard let handle = mosquitto_new(settings.clientID, true, nil) else {
            throw MosquittoError(call: "mosquitto_new", code: MOSQ_ERR_NOMEM.rawValue)
        }
        self.handle = handle
        mosquitto_user_data_set(handle, Unmanaged.passUnretained(self).toOpaque())
        mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, settings.maximumPacket == nil ? MQTT_PROTOCOL_V311 : MQTT_PROTOCOL_V5)
        if let maximum = settings.maximumPacket {
            var properties: OpaquePointer?
            _ = mosquitto_property_add_int32(&properties, Int32(MQTT_PROP_MAXIMUM_PACKET_SIZE.rawValue), maximum)
            connectProperties = properties
        }
        mosquitto_int_option(handle, MOSQ_OPT_TCP_NODELAY, 1)
        mosquitto_connect_callback_set(handle) { _, user, code in
            guard let user else { return }
            let client = Unmanaged<MosquittoClient>.fromOpaque(user).takeUnretainedValue()
            // MQTT 5 answers with reason codes (128 and up for a refusal), 3.1.1 with 0-5.
            let reason = code >= 128 ? mosquitto_reason_string(code) : mosquitto_connack_string(code)
            client.handler(.connected(code: code, reason: reason.map { String(cString: $0) } ?? "code \(code)"))
        }
        mosquitto_disconnect_callback_set(handle) { _, user, code in
            guard let user else { return }
            let client = Unmanaged<MosquittoClient>.fromOpaque(user).takeUnretainedValue()
            client.handler(.disconnected(expected: code == 0))
        }
        mosquitto_publish_callback_set(handle) { _, user, messageID in
            guard let user else { return }
            Unmanaged<MosquittoClient>.fromOpaque(user).takeUnretainedValue().handler(.published(messageID: messageID))
        }
        mosquitto_message_callback_set(handle) { _, user, message in
            guard let user, let message, let topic = message.pointee.topic else { return }
            let client = Unmanaged<MosquittoClient>.fromOpaque(user).takeUnretainedValue()
            let count = Int(message.pointee.payloadlen)
            guard count <= client.maximumPayload else {
                client.handler(.oversized(topic: String(cString: topic), bytes: count))
                return
            }
            var payload: [UInt8] = []
            if count > 0, let bytes = message.pointee.payload {
                payload = Array(UnsafeRawBufferPointer(start: bytes, count: count))
            }
            client.handler(.message(topic: String(cString: topic), payload: payload, retained: message.pointee.retain))
        }
        mosquitto_log_callback_set(handle) { _, user, level, text in
            guard let user, let text, level & Int32(MOSQ_LOG_ERR) != 0 else { return }
            Unmanaged<MosquittoClient>.fromOpaque(user).takeUnretainedValue().handler(.error(String(cString: text)))
        }

        do throws(MosquittoError) {
            // libmosquitto's own reconnects (after a lost connection): delay × attempts², capped.
            try check("mosquitto_reconnect_delay_set",
                      mosquitto_reconnect_delay_set(handle, settings.reconnectDelay.first, settings.reconnectDelay.maximum, true))
            if let username = settings.username {
                try check("mosquitto_username_pw_set", mosquitto_username_pw_set(handle, username, settings.password))
            }
            if settings.tls {
                try check("mosquitto_tls_set", mosquitto_tls_set(handle, settings.caFile, settings.caPath,
                                                                 settings.certFile, settings.keyFile, nil))
            }
            if let will = settings.will {
                let bytes = Array(will.payload.utf8)
                try check("mosquitto_will_set", mosquitto_will_set(handle, will.topic, Int32(bytes.count), bytes, will.qos, true))
            }
        } catch {
            mosquitto_destroy(handle)
            throw error
        }
    }

    deinit {
        close()
        mosquitto_property_free_all(&connectProperties)
    }

    private func check(_ call: String, _ code: Int32) throws(MosquittoError) {
        guard code == MOSQ_ERR_SUCCESS.rawValue else { throw MosquittoError(call: call, code: code) }
    }

    /// Starts the network thread: it connects (retrying with the backoff of
    /// ``MosquittoSettings/reconnectDelay`` while the broker is unreachable or refuses),
    /// then runs libmosquitto's loop, which reconnects by itself after a lost connection.
    /// Each failed attempt is reported as ``MosquittoEvent/error(_:)``.
    public func start(host: String, port: Int, keepalive: Int, reconnectDelay: (first: UInt32, maximum: UInt32)) {
        mosquitto_threaded_set(handle, true)
        started.store(true, ordering: .releasing)
        let thread = Thread { [self] in
            var delay = Double(reconnectDelay.first)
            while !stopping.load(ordering: .acquiring) {
                let code = mosquitto_connect_bind_v5(handle, host, Int32(port), Int32(keepalive), nil, connectProperties)
                if code == MOSQ_ERR_SUCCESS.rawValue {
                    delay = Double(reconnectDelay.first)
                    // Returns after mosquitto_disconnect, or on an error it does not retry.
                    let end = mosquitto_loop_forever(handle, 1000, 1)
                    if stopping.load(ordering: .acquiring) { break }
                    if end != MOSQ_ERR_SUCCESS.rawValue { handler(.error("connection ended: " + MosquittoError(call: "loop", code: end).reason)) }
                } else {
                    handler(.error("cannot connect: " + MosquittoError(call: "connect", code: code).reason))
                }
                // Back off in short steps, so a stop is not held up.
                let until = Date().addingTimeInterval(delay)
                while !stopping.load(ordering: .acquiring), Date() < until { Thread.sleep(forTimeInterval: 0.05) }
                delay = min(delay * 2, Double(reconnectDelay.maximum))
            }
            finished.store(true, ordering: .releasing)
        }
        thread.name = "mqtt"
        thread.start()
    }

    /// Queues a message; returns its message id (reported back in ``MosquittoEvent/published(messageID:)``).
    public func publish(topic: String, payload: [UInt8], qos: Int32, retain: Bool) throws(MosquittoError) -> Int32 {
        var messageID: Int32 = 0
        let code = payload.withUnsafeBytes { raw in
            mosquitto_publish(handle, &messageID, topic, Int32(raw.count), raw.baseAddress, qos, retain)
        }
        try check("mosquitto_publish", code)
        return messageID
    }

    /// Subscribes to a topic filter.
    public func subscribe(_ filter: String, qos: Int32) throws(MosquittoError) {
        try check("mosquitto_subscribe", mosquitto_subscribe(handle, nil, filter, qos))
    }

    /// Sends DISCONNECT (the broker then does not publish the will) and waits up to
    /// `timeout` seconds for the network thread to end.
    /// - Returns: whether it ended (a connect attempt to an unresponsive host can hold it).
    @discardableResult
    public func stop(timeout: Double) -> Bool {
        guard started.load(ordering: .acquiring) else { return true }
        stopping.store(true, ordering: .releasing)
        mosquitto_disconnect(handle)
        let deadline = Date().addingTimeInterval(timeout)
        while !finished.load(ordering: .acquiring), Date() < deadline { Thread.sleep(forTimeInterval: 0.002) }
        return finished.load(ordering: .acquiring)
    }

    /// Stops the thread and frees the client; a thread that would not end keeps the
    /// client (the process is about to exit).
    public func close() {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        if stop(timeout: 0.2) { mosquitto_destroy(handle) }
    }

    /// libmosquitto's version, e.g. "2.0.11".
    public static var libraryVersion: String {
        var major: Int32 = 0, minor: Int32 = 0, revision: Int32 = 0
        mosquitto_lib_version(&major, &minor, &revision)
        return "\(major).\(minor).\(revision)"
    }
}
