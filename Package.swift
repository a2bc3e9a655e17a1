// swift-tools-version:6.0
// Lector: live text recognition from V4L2 cameras, published over a Unix socket.
//
// Targets along the data flow (no dependency runs backwards):
//   LectorSystem   the syscall seam and logging
//   LectorProtocol the wire protocol both ends share (no C)
//   LectorClient   a client of lectord's socket (LectorProtocol, LectorSystem)
//   LectorCore     the daemon: capture, mailbox, imaging, recognition, pipeline, server
import PackageDescription

let package = Package(
    name: "Lector",
    products: [
        .executable(name: "lectord", targets: ["lectord"]),
        .executable(name: "lector", targets: ["lector"]),
        .executable(name: "lector-bench", targets: ["lector-bench"]),
        .library(name: "LectorClient", targets: ["LectorClient"]),
        .library(name: "LectorCore", targets: ["LectorCore"]),
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
        // V4L2 request codes and pixel formats as constants, plus libv4l2's entry points.
        .target(
            name: "CV4L2",
            linkerSettings: [.linkedLibrary("v4l2")]
        ),
        // What Glibc's Swift module hides: accept4, eventfd, gettid (no other library).
        .target(name: "CLectorSystem"),
        .target(name: "LectorSystem", dependencies: ["CLectorSystem"]),
        .target(name: "LectorProtocol"),
        .target(name: "LectorClient", dependencies: ["LectorProtocol", "LectorSystem"]),
        .target(
            name: "LectorCore",
            dependencies: ["LectorProtocol", "LectorSystem", "CTesseract", "CJPEG", "CV4L2"],
            resources: [.copy("Resources/demo")]
        ),
        .executableTarget(name: "lectord", dependencies: ["LectorCore"]),
        .executableTarget(name: "lector", dependencies: ["LectorClient", "LectorSystem"]),
        // The benchmark's reference: what a C program calling Tesseract directly does.
        .target(
            name: "CBenchReference",
            linkerSettings: [.linkedLibrary("tesseract"), .linkedLibrary("lept")]
        ),
        .executableTarget(
            name: "lector-bench",
            dependencies: ["LectorCore", "LectorClient", "CBenchReference"],
            resources: [.copy("Frames")]
        ),
        // The protocol fuzz target (scripts/fuzz-requests builds it with libFuzzer;
        // a plain build replays input files). libFuzzer supplies main, hence
        // -parse-as-library.
        .executableTarget(
            name: "lector-fuzz",
            dependencies: ["LectorProtocol"],
            path: "tests/fuzz",
            exclude: ["corpus"],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ),
        .testTarget(
            name: "LectorTests",
            dependencies: ["LectorCore", "LectorClient"],
            exclude: ["Fixtures"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
