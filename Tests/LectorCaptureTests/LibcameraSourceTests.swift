@testable import LectorCapture
@testable import LectorDaemon
@testable import LectorProtocol
@testable import LectorSystem
import LectorTestSupport
import Testing

/// The libcamera source's parts that run without a camera; the camera itself is tested
/// on libcamera's virtual camera in a Debian 13 VM (tests/pi/run).
@Suite("libcamera source")
struct LibcameraSourceTests {
    @Test("--device values that name a libcamera camera", arguments: [
        ("libcamera:0", true), ("libcamera:/base/soc/i2c0mux/i2c@1/imx708@1a", true), ("libcamera:Virtual0", true),
        ("/dev/video0", false), ("/dev/v4l/by-id/usb-cam-video-index0", false), ("libcamera", false),
    ])
    func names(path: String, isLibcamera: Bool) {
        #expect(LibcameraSource.names(path) == isLibcamera, "\(path)")
    }

    @Test("without libcamera >= 0.4 at build time, --device libcamera:ID says why")
    func unavailable() throws {
        guard !LibcameraSource.isBuiltIn else { return }  // Debian 13: built in, tested in the VM
        let logger = Logger(label: "test", level: .error)
        #expect(throws: LibcameraError.unavailable) {
            _ = try LibcameraSource(settings: CaptureSettings(path: "libcamera:0"), logger: logger)
        }
        #expect(LibcameraError.unavailable.description.contains("libcamera >= 0.4"))
        // (do/catch: #expect(throws:) returns the error only from Swift 6.1 on; Debian 13 has 6.0.3)
        do {
            _ = try SourceFactory.makeSource(for: CameraSpec(source: .device(path: "libcamera:0")), logger: logger)
            Issue.record("a libcamera device was accepted by a build without libcamera")
        } catch {
            #expect("\(error)".contains("built without libcamera support"), "\(error)")
        }
    }

    @Test("libcamera's mounting properties read like V4L2's controls", arguments: [
        (Int32?(1), Int32?(180), CameraPosition?(.back), Int?(180)),
        (Int32?(0), Int32?(90), CameraPosition?(.front), Int?(270)),
        (Int32?(2), Int32?.none, CameraPosition?(.external), Int?.none),
        (Int32?.none, Int32?(0), CameraPosition?.none, Int?(0)),
    ])
    func mounting(location: Int32?, rotation: Int32?, position: CameraPosition?, clockwise: Int?) {
        var info = LibcameraCamera.Info()
        info.location = location
        info.rotation = rotation
        #expect(info.metadata == CameraMetadata(position: position, rotation: clockwise))
    }
}
