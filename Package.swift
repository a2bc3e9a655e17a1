// swift-tools-version:6.0
// Lector: live text recognition from V4L2 cameras, published over a Unix socket.
//
// Targets along the data flow (no dependency runs backwards):
//   LectorSystem   the syscall seam and logging
//   LectorProtocol the wire protocol both ends share (no C)
//   LectorOptions  every program's option table (LectorSystem)
//   LectorClient   a client of lectord's socket (LectorProtocol, LectorSystem)
//   LectorHistory  the reading history in SQLite (LectorProtocol, LectorSystem, CSQLite)
//   LectorImaging → LectorCapture → LectorLive, LectorEngine → LectorDetector →
//   LectorRecognition → LectorPipeline → LectorServer → LectorDaemon: the daemon, one
//   target a stage of the flow (each target's top file, Sources/X/X.swift, says what it
//   owns and may import)
//   LectorHTTP     the web page bridge lector-http (LectorClient and libmicrohttpd)
//   LectorMQTT     the MQTT bridge lector-mqtt (LectorClient and libmosquitto)
//
// The native libcamera source (`--device libcamera:ID`, target CLibCamera, C++ behind a
// C interface) is built only when pkg-config finds libcamera >= 0.4 (Debian 13,
// Raspberry Pi OS trixie); elsewhere (Debian 12 has 0.0.3) the rest builds without it
// and the flag says why. LECTOR_LIBCAMERA=0 in the environment leaves it out anyway.
//
// QR codes and barcodes (`codes = on`, target CZXing, C++ behind a C interface) are
// read only when pkg-config finds ZXing-C++ (`zxing`: Debian's libzxing-dev, 1.4 on
// Debian 12, 2.x on Debian 13); LECTOR_CODES=0 leaves them out anyway.
//
// The text-line detector (`--layout detector`) and the neural line recognizer (target
// CTextDetector, C++ behind a C interface) are built only when ONNX Runtime's C API and
// OpenCV's imgproc module are installed: ONNX Runtime through pkg-config
// (`libonnxruntime`: Debian 13's libonnxruntime-dev, or on Debian 12 the file
// scripts/setup writes for its copy of PyPI's library), OpenCV's imgproc
// (libopencv-imgproc-dev) by its headers and libraries; both under
// PKG_CONFIG_SYSROOT_DIR in a cross build's sysroot. LECTOR_DETECTOR=0 leaves them out anyway.
import Foundation
import PackageDescription

/// pkg-config's output for `arguments`, or nil when it fails.
func pkgConfig(_ arguments: [String]) -> String? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["pkg-config"] + arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    do { try process.run() } catch { return nil }
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return process.terminationStatus == 0 ? String(decoding: data, as: UTF8.self) : nil
}

/// pkg-config's flags split into words, a linker's `-Wl,A,B` as swiftc's `-Xlinker A -Xlinker B`.
func words(_ text: String) -> [String] {
    text.split(whereSeparator: { $0 == " " || $0 == "\n" }).flatMap { word -> [String] in
        guard word.hasPrefix("-Wl,") else { return [String(word)] }
        return word.dropFirst(4).split(separator: ",").flatMap { ["-Xlinker", String($0)] }
    }
}

/// pkg-config's answer for libcamera >= 0.4, or nil (not installed, too old, switched off).
func libcamera() -> (cflags: [String], libs: [String])? {
    if ProcessInfo.processInfo.environment["LECTOR_LIBCAMERA"] == "0" { return nil }
    guard pkgConfig(["--atleast-version=0.4", "libcamera"]) != nil,
          let cflags = pkgConfig(["--cflags", "libcamera"]), let libs = pkgConfig(["--libs", "libcamera"])
    else { return nil }
    return (words(cflags), words(libs))
}
let libcameraFlags = libcamera()

/// The compiler and linker flags for ONNX Runtime's C API and OpenCV's imgproc module,
/// or nil (not installed, switched off).
func networks() -> (cflags: [String], libs: [String])? {
    let environment = ProcessInfo.processInfo.environment
    if environment["LECTOR_DETECTOR"] == "0" { return nil }
    guard let onnxCflags = pkgConfig(["--cflags", "libonnxruntime"]), let onnxLibs = pkgConfig(["--libs", "libonnxruntime"])
    else { return nil }
    let sysroot = environment["PKG_CONFIG_SYSROOT_DIR"] ?? ""
    let files = FileManager.default
    guard files.fileExists(atPath: sysroot + "/usr/include/opencv4/opencv2/imgproc.hpp") else { return nil }
    // The libraries in the multiarch folder of the sysroot (or of this machine).
    let libraryFolders = ((try? files.contentsOfDirectory(atPath: sysroot + "/usr/lib")) ?? [])
        .filter { $0.hasSuffix("-linux-gnu") }.map { sysroot + "/usr/lib/" + $0 } + [sysroot + "/usr/lib"]
    guard let folder = libraryFolders.first(where: { folder in
        ["imgproc", "core"].allSatisfy { files.fileExists(atPath: "\(folder)/libopencv_\($0).so") }
    }) else { return nil }
    return (words(onnxCflags) + ["-I\(sysroot)/usr/include/opencv4"],
            words(onnxLibs) + ["-L\(folder)", "-lopencv_imgproc", "-lopencv_core"])
}
let networkFlags = networks()

/// pkg-config's answer for ZXing-C++ (libzxing-dev: 1.4 on Debian 12, 2.x on Debian 13),
/// or nil (not installed, switched off).
func zxing() -> (cflags: [String], libs: [String])? {
    if ProcessInfo.processInfo.environment["LECTOR_CODES"] == "0" { return nil }
    guard let cflags = pkgConfig(["--cflags", "zxing"]), let libs = pkgConfig(["--libs", "zxing"]) else { return nil }
    return (words(cflags), words(libs))
}
let zxingFlags = zxing()

let package = Package(
    name: "Lector",
    products: [
        .executable(name: "lectord", targets: ["lectord"]),
        .executable(name: "lector", targets: ["lector"]),
        .executable(name: "lector-bench", targets: ["lector-bench"]),
        .executable(name: "lector-mqtt", targets: ["lector-mqtt"]),
        .executable(name: "lector-http", targets: ["lector-http"]),
        .library(name: "LectorClient", targets: ["LectorClient"]),
    ],
    targets: [
        // Tesseract's and Leptonica's C APIs, found through pkg-config.
        .systemLibrary(
            name: "CTesseract",
            pkgConfig: "tesseract lept",
            providers: [.apt(["libtesseract-dev", "libleptonica-dev"])]
        ),
        // Every libjpeg-turbo call, behind a setjmp/longjmp error manager.
        .target(
            name: "CJPEG",
            linkerSettings: [.linkedLibrary("jpeg")]
        ),
        // Network cameras through FFmpeg's libavformat and libavcodec (RTSP, HTTP MJPEG,
        // snapshots) behind a narrow C interface (lector_netcam.h): interrupt callback,
        // newest-frame reading, luma planes handed out without a copy.
        .target(
            name: "CFFmpeg",
            linkerSettings: [.linkedLibrary("avformat"), .linkedLibrary("avcodec"), .linkedLibrary("swscale"), .linkedLibrary("avutil")]
        ),
        // V4L2 request codes and pixel formats as constants, plus libv4l2's entry points.
        .target(
            name: "CV4L2",
            linkerSettings: [.linkedLibrary("v4l2")]
        ),
        // The capture side's per-pixel loops (stack fold and read-out, profiles, YUYV luma),
        // plain C compiled with optimization in every build: SwiftPM's -O0 comes first on a
        // debug build's command line and this -O2 after it wins (unoptimized Swift loops
        // made a debug lectord's capture thread fall behind; Swift's SIMD types are slower
        // still there). No FP contraction: float results stay the Swift code's.
        .target(name: "CFrameKernels", cSettings: [.unsafeFlags(["-O2", "-ffp-contract=off"])]),
        // What Glibc's Swift module hides: accept4, eventfd, gettid (no other library).
        .target(name: "CLectorSystem"),
        .target(name: "LectorSystem", dependencies: ["CLectorSystem"]),
        .target(name: "LectorProtocol"),
        // Every program's option table: flags, configuration keys, --help, the man page,
        // docs/configuration.md and reload from one place (LectorSystem only).
        .target(name: "LectorOptions", dependencies: ["LectorSystem"]),
        .target(name: "LectorClient", dependencies: ["LectorProtocol", "LectorSystem"]),
        // SQLite's C API (Debian's libsqlite3), found through pkg-config.
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // The reading history: MATCH messages in SQLite (lectord writes it, lector reads it).
        .target(name: "LectorHistory", dependencies: ["LectorProtocol", "LectorSystem", "CSQLite"]),
        // The daemon's core, one target per stage of the flow; each may import only the
        // targets above it (tests/layout/run checks it).
        // Frames and images: pixel formats, luma, JPEG, orientation, the per-frame measures.
        .target(name: "LectorImaging", dependencies: ["LectorProtocol", "LectorSystem", "CJPEG", "CV4L2", "CTesseract", "CFrameKernels"]),
        // Where frames come from: V4L2, libcamera, network cameras, replay and demo, recording, the mailbox.
        .target(
            name: "LectorCapture",
            dependencies: ["LectorImaging", "LectorProtocol", "LectorSystem", "CV4L2", "CFFmpeg"]
                + (libcameraFlags == nil ? [] : ["CLibCamera"]),
            resources: [.copy("Resources/demo")]
        ),
        // Live text: stacking, line tracks, the consensus vote.
        .target(name: "LectorLive", dependencies: ["LectorImaging", "LectorProtocol", "LectorSystem"]),
        // The engines that read an image: Tesseract on a thread of its own, CTC decoding.
        .target(name: "LectorEngine", dependencies: ["LectorImaging", "LectorProtocol", "LectorSystem", "CTesseract"]),
        // The text-line detector and the neural line recognizer (ONNX Runtime), and the
        // layout that reads the lines it finds.
        .target(
            name: "LectorDetector",
            dependencies: ["LectorImaging", "LectorEngine", "LectorProtocol", "LectorSystem"]
                + (networkFlags == nil ? [] : ["CTextDetector"])
        ),
        // Reading an image: the recognizer, its layouts and zones, the recognizer pool.
        .target(
            name: "LectorRecognition",
            dependencies: ["LectorImaging", "LectorEngine", "LectorDetector", "LectorProtocol", "LectorSystem"]
                + (zxingFlags == nil ? [] : ["CZXing"])
        ),
        // ICU's regular expressions with a step limit, for the rules (Debian's libicu-dev).
        .target(name: "CICURegex", linkerSettings: [.linkedLibrary("icui18n"), .linkedLibrary("icuuc")]),
        // A camera: source to mailbox to recognition loop to publication, rules and hooks.
        .target(
            name: "LectorPipeline",
            dependencies: ["LectorImaging", "LectorCapture", "LectorLive", "LectorEngine", "LectorDetector", "LectorRecognition",
                           "LectorHistory", "LectorProtocol", "LectorSystem", "CICURegex"]
        ),
        // The Unix socket server and the systemd service.
        .target(name: "LectorServer", dependencies: ["LectorImaging", "LectorPipeline", "LectorProtocol", "LectorSystem"]),
        // The daemon's wiring: options, configuration, signals, the run.
        .target(
            name: "LectorDaemon",
            dependencies: ["LectorImaging", "LectorCapture", "LectorLive", "LectorEngine", "LectorDetector", "LectorRecognition",
                           "LectorPipeline", "LectorServer", "LectorOptions", "LectorProtocol", "LectorSystem"]
        ),
        .executableTarget(name: "lectord", dependencies: ["LectorDaemon"]),
        .executableTarget(name: "lector", dependencies: ["LectorClient", "LectorHistory", "LectorProtocol", "LectorSystem"]),
        // libmosquitto's client API, found through pkg-config.
        .systemLibrary(
            name: "CMosquitto",
            pkgConfig: "libmosquitto",
            providers: [.apt(["libmosquitto-dev"])]
        ),
        // The MQTT bridge's logic: a client of lectord's socket (LectorClient only: no OCR
        // engine, V4L2 or libjpeg) and of a broker.
        .target(name: "LectorMQTT", dependencies: ["LectorClient", "LectorOptions", "LectorProtocol", "LectorSystem", "CMosquitto"]),
        .executableTarget(name: "lector-mqtt", dependencies: ["LectorMQTT"]),
        // lector-http: the web page bridge (libmicrohttpd; a client of the socket only).
        .systemLibrary(
            name: "CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]
        ),
        .target(name: "LectorHTTP", dependencies: ["LectorClient", "LectorOptions", "LectorProtocol", "LectorSystem", "CMicroHTTPD"]),
        .executableTarget(name: "lector-http", dependencies: ["LectorHTTP"], resources: [.copy("www")]),
        // The benchmark's reference: what a C program calling Tesseract directly does.
        // Linked through CTesseract's pkg-config flags: Leptonica's library is liblept
        // on Debian 12 and libleptonica on Debian 13.
        .target(name: "CBenchReference", dependencies: ["CTesseract"]),
        .executableTarget(
            name: "lector-bench",
            dependencies: ["LectorDaemon", "LectorEngine", "LectorDetector", "LectorClient", "CBenchReference"],
            resources: [.copy("Frames")]
        ),
        // The protocol fuzz target (tests/fuzz/run builds it with libFuzzer;
        // a plain build replays input files). libFuzzer supplies main, hence
        // -parse-as-library.
        .executableTarget(
            name: "lector-fuzz",
            dependencies: ["LectorProtocol"],
            path: "tests/fuzz",
            exclude: ["corpus", "run"],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ),
        // What the tests share: fixtures, the package's paths, child processes, frame synthesis.
        .target(
            name: "LectorTestSupport",
            dependencies: ["LectorImaging", "LectorRecognition", "LectorProtocol", "LectorSystem"],
            path: "Tests/LectorTestSupport"
        ),
        // One test target per library (fixtures in Tests/Fixtures, made by scripts/make-fixtures.py).
        .testTarget(name: "LectorProtocolTests", dependencies: ["LectorProtocol", "LectorTestSupport"]),
        .testTarget(name: "LectorSystemTests", dependencies: ["LectorSystem", "LectorTestSupport"]),
        .testTarget(name: "LectorImagingTests", dependencies: ["LectorProtocol", "LectorSystem", "LectorImaging", "LectorPipeline", "LectorTestSupport"]),
        .testTarget(name: "LectorCaptureTests", dependencies: ["LectorProtocol", "LectorSystem", "LectorImaging", "LectorCapture", "LectorEngine", "LectorDetector", "LectorRecognition", "LectorPipeline", "LectorDaemon", "LectorTestSupport"]),
        .testTarget(name: "LectorLiveTests", dependencies: ["LectorProtocol", "LectorSystem", "LectorImaging", "LectorCapture", "LectorLive", "LectorPipeline", "lector", "LectorTestSupport"]),
        .testTarget(name: "LectorRecognitionTests", dependencies: ["LectorProtocol", "LectorSystem", "LectorImaging", "LectorCapture", "LectorLive", "LectorEngine", "LectorDetector", "LectorRecognition", "LectorPipeline", "LectorTestSupport"]),
        .testTarget(name: "LectorPipelineTests", dependencies: ["LectorProtocol", "LectorSystem", "LectorImaging", "LectorCapture", "LectorEngine", "LectorDetector", "LectorRecognition", "LectorPipeline", "LectorDaemon", "lector", "LectorTestSupport"]),
        .testTarget(name: "LectorServerTests", dependencies: ["LectorProtocol", "LectorSystem", "LectorClient", "LectorImaging", "LectorCapture", "LectorEngine", "LectorDetector", "LectorRecognition", "LectorPipeline", "LectorServer", "LectorDaemon", "lector", "LectorTestSupport"]),
        .testTarget(name: "LectorDaemonTests", dependencies: ["LectorProtocol", "LectorSystem", "LectorImaging", "LectorCapture", "LectorEngine", "LectorDetector", "LectorRecognition", "LectorPipeline", "LectorDaemon", "LectorTestSupport"]),
        .testTarget(name: "LectorHistoryTests", dependencies: ["LectorHistory", "LectorProtocol", "LectorTestSupport"]),
        .testTarget(name: "LectorMQTTTests", dependencies: ["LectorProtocol", "LectorSystem", "LectorMQTT"]),
        .testTarget(name: "LectorHTTPTests", dependencies: ["LectorSystem", "LectorHTTP"]),
    ],
    swiftLanguageModes: [.v6],
    cxxLanguageStandard: .cxx17
)

// libcamera's C++ API behind a C interface (lector_libcamera.h): only with libcamera >= 0.4.
if let flags = libcameraFlags {
    package.targets.append(.target(
        name: "CLibCamera",
        cxxSettings: [.unsafeFlags(flags.cflags)],
        linkerSettings: [.unsafeFlags(flags.libs), .linkedLibrary("stdc++")]
    ))
}

// The networks on ONNX Runtime (lector_onnx.h) and what OpenCV's imgproc does around them
// (lector_text_detector.h, lector_line_recognizer.h): only with both installed.
if let flags = networkFlags {
    package.targets.append(.target(
        name: "CTextDetector",
        cxxSettings: [.unsafeFlags(flags.cflags + ["-O2"])],
        linkerSettings: [.unsafeFlags(flags.libs), .linkedLibrary("stdc++")]
    ))
}

// ZXing-C++ behind a C interface (lector_codes.h): only where pkg-config finds it.
if let flags = zxingFlags {
    package.targets.append(.target(
        name: "CZXing",
        cxxSettings: [.unsafeFlags(flags.cflags + ["-O2"])],
        linkerSettings: [.unsafeFlags(flags.libs), .linkedLibrary("stdc++")]
    ))
}
