@testable import LectorCapture
import Testing

/// `hwdecode`: what is accepted and which decoders are tried for which codec (issue 47).
@Suite struct HardwareDecodingTests {
    @Test(arguments: [
        ("auto", HardwareDecoding.auto), ("off", .off), ("h264_v4l2m2m", .named("h264_v4l2m2m")), ("VAAPI", .named("vaapi")),
    ])
    func accepted(text: String, expected: HardwareDecoding) {
        #expect(HardwareDecoding(parsing: text) == expected)
    }

    @Test(arguments: ["", "a b", "../dev", String(repeating: "x", count: 33), "h264-v4l2m2m"])
    func refused(text: String) {
        #expect(HardwareDecoding(parsing: text) == nil)
    }

    @Test(arguments: [
        // (setting, codec, what this FFmpeg knows, tried in order, left out as unknown)
        ("auto", "h264", ["h264_v4l2m2m", "vaapi"], ["h264_v4l2m2m", "vaapi"], [String]()),
        ("auto", "hevc", ["h264_v4l2m2m", "vaapi"], ["vaapi"], ["hevc_v4l2m2m"]),
        ("auto", "h264", [], [], ["h264_v4l2m2m", "vaapi"]),
        ("auto", "mjpeg", ["h264_v4l2m2m", "vaapi"], [], []),
        ("off", "h264", ["h264_v4l2m2m", "vaapi"], [], []),
        ("h264_v4l2m2m", "h264", ["h264_v4l2m2m"], ["h264_v4l2m2m"], []),
        ("h264_v4l2m2m", "hevc", ["h264_v4l2m2m"], [], []),  // a decoder of another codec is never asked
        ("vaapi", "hevc", ["vaapi"], ["vaapi"], []),
        ("foo", "h264", ["vaapi"], [], ["foo"]),
    ])
    func choice(setting: String, codec: String, known: [String], tried: [String], unknown: [String]) throws {
        let decoding = try #require(HardwareDecoding(parsing: setting))
        let choice = decoding.choice(forCodec: codec, known: { known.contains($0) })
        #expect(choice.tried == tried)
        #expect(choice.unknown == unknown)
    }
}
