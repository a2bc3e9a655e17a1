import LectorPipeline
import LectorProtocol
import LectorRecognition
import Testing

/// Which formats a camera reads (DEVICES' `codes`, issue 48): the camera's `codes`
/// without zones, the zones' own (or the camera's) with them.
@Suite("A camera's code formats")
struct CodeWatchTests {
    static let box = PixelBox(x: 0, y: 0, width: 100, height: 50)

    /// A zone with `codes` of its own (nil: the camera's).
    static func zone(_ name: String, _ codes: Set<CodeFormat>?) -> ZoneSpec {
        var zone = ZoneSpec(name: name, rect: box)
        zone.profile.codes = codes
        return zone
    }

    @Test("formats read anywhere, in CodeFormat's order; nil when none", arguments: [
        ([.ean13, .qr], [], [.qr, .ean13] as [CodeFormat]?),
        ([], [], nil),
        ([.qr], [zone("a", nil), zone("b", [.codabar, .aztec])], [.qr, .aztec, .codabar]),
        ([.qr], [zone("a", []), zone("b", [.itf])], [.itf]),
        ([], [zone("a", nil), zone("b", [])], nil),
        (Set(CodeFormat.allCases), [], CodeFormat.allCases),
    ] as [(Set<CodeFormat>, [ZoneSpec], [CodeFormat]?)])
    func formats(camera: Set<CodeFormat>, zones: [ZoneSpec], read: [CodeFormat]?) {
        var options = RecognizerOptions()
        options.codes = camera
        options.zones = zones
        // A build without ZXing-C++ reads no codes, whatever the configuration says.
        #expect(CodeWatch.formats(options) == (CodeReader.isAvailable ? read : nil))
    }
}
