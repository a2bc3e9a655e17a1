@testable import LectorSystem
import LectorTestSupport
import Testing

@Suite("Logger")
struct LoggerTests {
    @Test("once: repeats are silent until the message or a field changes; devices are separate")
    func once() {
        let registry = OnceRegistry()
        #expect(registry.shouldLog(key: "frame device=a", message: "rejected reason=x"))
        #expect(!registry.shouldLog(key: "frame device=a", message: "rejected reason=x"))
        #expect(registry.shouldLog(key: "frame device=b", message: "rejected reason=x"))
        #expect(registry.shouldLog(key: "frame device=a", message: "rejected reason=y"))
        registry.clear(key: "frame device=a")
        #expect(registry.shouldLog(key: "frame device=a", message: "rejected reason=y"))
    }
}
