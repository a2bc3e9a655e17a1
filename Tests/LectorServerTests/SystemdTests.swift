import Foundation
import Glibc
@testable import LectorPipeline
@testable import LectorProtocol
@testable import LectorServer
@testable import LectorSystem
import LectorTestSupport
import Synchronization
import Testing

/// A bound `AF_UNIX`/`SOCK_DGRAM` socket standing in for systemd's notify socket.
final class FakeNotifySocket: @unchecked Sendable {
    let descriptor: Int32
    /// The `$NOTIFY_SOCKET` value that reaches it.
    let environmentValue: String
    private let path: String?

    /// - Parameter abstract: bind in the abstract namespace (`@name`) instead of a file.
    init(abstract: Bool = false) throws {
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw SystemError.current("socket") }
        let name = "lector-notify-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes: [UInt8]
        if abstract {
            bytes = [0] + Array(name.utf8)
            environmentValue = "@" + name
            path = nil
        } else {
            let file = NSTemporaryDirectory() + name + ".sock"
            bytes = Array(file.utf8) + [0]
            environmentValue = file
            path = file
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t(MemoryLayout.offset(of: \sockaddr_un.sun_path)! + bytes.count - (abstract ? 0 : 1))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard bound == 0 else { throw SystemError.current("bind") }
    }

    deinit {
        close(descriptor)
        if let path { unlink(path) }
    }

    /// The next datagram as text, or nil after `timeout` seconds.
    func receive(timeout: Double = 5) -> String? {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Int32(timeout * 1000)) == 1 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(descriptor, &buffer, buffer.count, 0)
        return count >= 0 ? String(decoding: buffer[..<count], as: UTF8.self) : nil
    }

    /// Reads datagrams on a thread of its own until ``stopCollecting()``, so that a
    /// sender never finds the queue full (systemd reads at once, too).
    func startCollecting() {
        Thread.detachNewThread { [self] in
            while !collector.withLock({ $0.stopped }) {
                if let message = receive(timeout: 0.05) { collector.withLock { $0.messages.append(message) } }
            }
            collector.withLock { $0.finished = true }
        }
    }

    /// Stops collecting and returns what arrived.
    func stopCollecting() -> [String] {
        collector.withLock { $0.stopped = true }
        while !collector.withLock({ $0.finished }) { usleep(10_000) }
        while let message = receive(timeout: 0.05) { collector.withLock { $0.messages.append(message) } }
        return collector.withLock { $0.messages }
    }

    private let collector = Mutex<(messages: [String], stopped: Bool, finished: Bool)>(([], false, false))

    /// Every datagram that arrives within `seconds`.
    func receiveAll(for seconds: Double) -> [String] {
        var messages: [String] = []
        let deadline = MonotonicInstant.now().adding(milliseconds: seconds * 1000)
        while MonotonicInstant.now() < deadline {
            if let message = receive(timeout: max(0.01, deadline.milliseconds(since: .now()) / 1000)) { messages.append(message) }
        }
        return messages
    }
}

@Suite("systemd notify protocol", .serialized)
struct SystemdNotifierTests {
    @Test("$NOTIFY_SOCKET values", arguments: [
        ("/run/systemd/notify", NotifyAddress.path("/run/systemd/notify")),
        ("@/org/freedesktop/systemd1/notify/123", NotifyAddress.abstract("/org/freedesktop/systemd1/notify/123")),
        ("", nil),
        ("@", nil),
        ("relative/notify", nil),
        ("vsock:2:1234", nil),
        ("/" + String(repeating: "x", count: 200), nil),
    ] as [(String, NotifyAddress?)])
    func addresses(value: String, expected: NotifyAddress?) {
        #expect(NotifyAddress(environmentValue: value) == expected, "\(value) parses as \(String(describing: expected))")
    }

    @Test("no $NOTIFY_SOCKET: no notifier")
    func noSocket() {
        #expect(SystemdNotifier.fromEnvironment([:]) == nil)
        #expect(SystemdNotifier.fromEnvironment(["NOTIFY_SOCKET": "/run/x"])?.address == .path("/run/x"))
    }

    @Test("assignments as sent", arguments: [
        (ServiceNotification.ready, "READY=1"),
        (.stopping, "STOPPING=1"),
        (.watchdog, "WATCHDOG=1"),
        (.status("demo: streaming 5.0 fps"), "STATUS=demo: streaming 5.0 fps"),
        (.status("two\nlines"), "STATUS=two lines"),
        (.mainPID(42), "MAINPID=42"),
    ])
    func assignments(notification: ServiceNotification, expected: String) {
        #expect(notification.assignment == expected)
    }

    @Test("$WATCHDOG_USEC and $WATCHDOG_PID", arguments: [
        (["WATCHDOG_USEC": "15000000"], 15.0),
        (["WATCHDOG_USEC": "15000000", "WATCHDOG_PID": "100"], 15.0),
        (["WATCHDOG_USEC": "15000000", "WATCHDOG_PID": "101"], nil),
        (["WATCHDOG_USEC": "0"], nil),
        (["WATCHDOG_USEC": "soon"], nil),
        ([:], nil),
    ] as [([String: String], Double?)])
    func watchdog(environment: [String: String], expected: Double?) {
        #expect(WatchdogSettings.interval(environment: environment, processID: 100) == expected)
    }

    @Test("one datagram with every assignment reaches a socket file and an abstract socket", arguments: [false, true])
    func sendsDatagram(abstract: Bool) throws {
        let fake = try FakeNotifySocket(abstract: abstract)
        let notifier = try #require(SystemdNotifier.fromEnvironment(["NOTIFY_SOCKET": fake.environmentValue]))
        try notifier.send([.ready, .status("demo: idle")])
        #expect(fake.receive() == "READY=1\nSTATUS=demo: idle")
        try notifier.send(.watchdog)
        #expect(fake.receive() == "WATCHDOG=1")
    }

    @Test("a socket nobody listens on is a typed error")
    func nobodyListens() {
        let notifier = SystemdNotifier(address: .path("/nonexistent/lector/notify"))
        #expect(throws: NotifyError.send(address: .path("/nonexistent/lector/notify"), SystemError(errno: ENOENT, call: "connect"))) {
            try notifier.send(.ready)
        }
    }

    @Test("a receiver that does not read never blocks the sender for long")
    func fullQueue() throws {
        let fake = try FakeNotifySocket()
        let notifier = SystemdNotifier(address: .path(fake.environmentValue))
        var failure: NotifyError?
        let started = MonotonicInstant.now()
        for _ in 0..<2000 {  // far more than a datagram queue holds
            do { try notifier.send(.watchdog) } catch { failure = error; break }
        }
        #expect(failure == .send(address: notifier.address, SystemError(errno: EAGAIN, call: "send")))
        #expect(MonotonicInstant.now().milliseconds(since: started) < 5000, "gave up after about a second")
    }

    @Test("a fault at the syscall seam surfaces as NotifyError")
    func injectedFault() throws {
        let fake = try FakeNotifySocket()
        let notifier = SystemdNotifier(address: .path(fake.environmentValue))
        Syscalls.injectFault(ECONNREFUSED, call: "sendto", descriptor: -1)
        #expect(throws: NotifyError.send(address: notifier.address, SystemError(errno: ECONNREFUSED, call: "sendto"))) {
            try notifier.send(.watchdog)
        }
        try notifier.send(.watchdog)  // one-shot: the next one goes through
        #expect(fake.receive() == "WATCHDOG=1")
    }
}

@Suite("honest camera health")
struct CameraHealthTests {
    private func at(_ seconds: Double) -> MonotonicInstant { MonotonicInstant(nanoseconds: Int64(seconds * 1e9)) }

    @Test("a streaming camera whose counter moves is healthy; one that stops moving is stalled")
    func streaming() {
        var health = CameraHealth(stallSeconds: 5)
        health.observe([CameraSample(name: "cam", state: .streaming, captured: 10)], at: at(0))
        health.observe([CameraSample(name: "cam", state: .streaming, captured: 20)], at: at(4))
        #expect(health.isHealthy(at: at(8.9)), "last frame 4.9 s ago")
        health.observe([CameraSample(name: "cam", state: .streaming, captured: 20)], at: at(9))
        #expect(!health.isHealthy(at: at(9)), "no frame for 5 s")
        #expect(health.stalled(at: at(9)).map(\.name) == ["cam"])
        health.observe([CameraSample(name: "cam", state: .streaming, captured: 21)], at: at(10))
        #expect(health.isHealthy(at: at(10)), "frames again")
    }

    @Test("lost and idle cameras do not withhold the watchdog; a hanging open does", arguments: [
        (CameraState.lost, true),
        (.idle, true),
        (.opening, false),
        (.streaming, false),
    ])
    func states(state: CameraState, healthy: Bool) {
        var health = CameraHealth(stallSeconds: 5)
        health.observe([CameraSample(name: "ok", state: .streaming, captured: 1),
                        CameraSample(name: "cam", state: state, captured: 0)], at: at(0))
        health.observe([CameraSample(name: "ok", state: .streaming, captured: 100),
                        CameraSample(name: "cam", state: state, captured: 0)], at: at(6))
        #expect(health.isHealthy(at: at(6)) == healthy, "\(state) for 6 s")
    }

    @Test("a camera that starts streaming gets the full stall time from then")
    func stateChangeRestartsClock() {
        var health = CameraHealth(stallSeconds: 5)
        health.observe([CameraSample(name: "cam", state: .lost, captured: 3)], at: at(0))
        health.observe([CameraSample(name: "cam", state: .streaming, captured: 3)], at: at(20))
        #expect(health.isHealthy(at: at(24)))
        #expect(!health.isHealthy(at: at(25)))
    }

    @Test("frame rates come from the counters over the window, not from recognized frames")
    func rates() {
        var meter = FrameRateMeter(windowSeconds: 5)
        _ = meter.measure([CameraSample(name: "cam", state: .streaming, captured: 0, recognized: 0)], at: at(0))
        var measured = meter.measure([CameraSample(name: "cam", state: .streaming, captured: 50, recognized: 1)], at: at(2))
        #expect(measured.first?.fps == 25 && measured.first?.recognizedPerSecond == 0.5)
        for second in 3...12 {
            measured = meter.measure([CameraSample(name: "cam", state: .streaming, captured: 50 + 10 * (second - 2), recognized: 1)], at: at(Double(second)))
        }
        #expect(measured.first.map { abs($0.fps - 10) < 0.01 } == true, "the old 25 fps left the window: \(measured.first?.fps ?? -1)")
        #expect(measured.first?.recognizedPerSecond == 0)
    }

    @Test("STATUS text: state, fps and latency per camera")
    func statusText() {
        let samples = [
            CameraSample(name: "/dev/video0", state: .streaming, captured: 9, fps: 24.96, recognizedPerSecond: 2.13, latencyMilliseconds: 181.4),
            CameraSample(name: "/dev/video2", state: .lost, captured: 0, error: "No such device"),
            CameraSample(name: "demo", state: .idle, captured: 0),
        ]
        #expect(ServiceStatusText.render(samples)
            == "/dev/video0: streaming 25.0 fps, 2.1 recognized/s, latency 181 ms; /dev/video2: lost (No such device); demo: idle")
        #expect(ServiceStatusText.render(samples, stalled: [("/dev/video0", 7.6)]).hasPrefix("/dev/video0: stalled, no frame for 8 s;"))
        #expect(ServiceStatusText.render([]) == "no cameras")
    }
}

@Suite("systemd service supervisor", .serialized)
struct SystemdServiceTests {
    /// Cameras whose samples a test changes.
    final class Cameras: @unchecked Sendable {
        private let lock = NSLock()
        private var samples: [CameraSample]
        init(_ samples: [CameraSample]) { self.samples = samples }
        func set(_ samples: [CameraSample]) { lock.withLock { self.samples = samples } }
        func get() -> [CameraSample] { lock.withLock { samples } }
    }

    private func service(_ fake: FakeNotifySocket, _ cameras: Cameras, watchdog: Double? = 10) -> SystemdService {
        SystemdService(notifier: SystemdNotifier(address: .path(fake.environmentValue)), watchdog: watchdog,
                       timing: SystemdService.Timing(tick: 3600, stallSeconds: 5, readyTimeout: 1),
                       logger: Logger(label: "test", level: .error)) { cameras.get() }
    }

    @Test("READY=1 comes with the first STATUS and a WATCHDOG=1; STOPPING=1 at the end")
    func readyAndStopping() throws {
        let fake = try FakeNotifySocket()
        let cameras = Cameras([CameraSample(name: "demo", state: .streaming, captured: 1, latencyMilliseconds: 60)])
        let service = service(fake, cameras)
        service.start()
        #expect(fake.receive() == "READY=1\nSTATUS=demo: streaming 0.0 fps, 0.0 recognized/s, latency 60 ms\nWATCHDOG=1")
        service.stopping()
        #expect(fake.receive() == "STOPPING=1\nSTATUS=stopping")
    }

    @Test("WATCHDOG=1 only while the streaming camera delivers; STATUS only when it changes")
    func honestWatchdog() throws {
        let fake = try FakeNotifySocket()
        let cameras = Cameras([CameraSample(name: "cam", state: .streaming, captured: 1, fps: 5)])
        let service = service(fake, cameras)
        service.start()
        _ = fake.receive()
        let t0 = MonotonicInstant.now()
        cameras.set([CameraSample(name: "cam", state: .streaming, captured: 2, fps: 5)])
        service.tick(at: t0.adding(milliseconds: 1000))
        #expect(fake.receive()?.hasSuffix("recognized/s\nWATCHDOG=1") == true, "a new frame: a rate and a ping")
        service.tick(at: t0.adding(milliseconds: 1500))
        #expect(fake.receive()?.hasSuffix("WATCHDOG=1") == true, "no new frame yet, but not stalled: a ping")
        service.tick(at: t0.adding(milliseconds: 7000))
        #expect(fake.receive() == "STATUS=cam: stalled, no frame for 6 s", "stalled: status, no watchdog")
        service.tick(at: t0.adding(milliseconds: 8000))
        #expect(fake.receive(timeout: 0.3) == "STATUS=cam: stalled, no frame for 7 s")
        cameras.set([CameraSample(name: "cam", state: .lost, captured: 2, error: "No such device")])
        service.tick(at: t0.adding(milliseconds: 9000))
        #expect(fake.receive() == "STATUS=cam: lost (No such device)\nWATCHDOG=1", "lost is reported, not stalled")
        service.stopping()
    }

    @Test("without WatchdogSec= only READY and STATUS are sent")
    func noWatchdog() throws {
        let fake = try FakeNotifySocket()
        let service = service(fake, Cameras([CameraSample(name: "cam", state: .idle, captured: 0)]), watchdog: nil)
        service.start()
        #expect(fake.receive() == "READY=1\nSTATUS=cam: idle")
        service.tick()
        #expect(fake.receive(timeout: 0.3) == nil)
        service.stopping()
    }

    @Test("the built lectord tells a notify socket READY, live STATUS, WATCHDOG and STOPPING")
    func lectordEndToEnd() throws {
        let fake = try FakeNotifySocket()
        fake.startCollecting()
        let result = try run(TestSupport.executable("lectord"), ["--demo", "--stdout", "--max-frames", "6", "--fps", "5"],
                             environment: ["NOTIFY_SOCKET": fake.environmentValue, "WATCHDOG_USEC": "400000"])
        #expect(result.status == 0, "\(result.stderr)")
        let messages = fake.stopCollecting()
        #expect(messages.first?.hasPrefix("READY=1\nSTATUS=demo: streaming") == true, "\(messages.first ?? "nothing")")
        #expect(messages.contains { $0.contains("WATCHDOG=1") }, "pings while demo frames arrive")
        #expect(messages.contains { $0.contains(" fps") }, "status with a frame rate")
        #expect(messages.last == "STOPPING=1\nSTATUS=stopping")
    }
}
