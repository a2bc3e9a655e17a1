// swift-tools-version:6.0
// Lector: live text recognition from V4L2 cameras, published over a Unix socket.
import PackageDescription

let package = Package(
    name: "Lector",
    products: [
        .executable(name: "lectord", targets: ["lectord"]),
        .executable(name: "lector", targets: ["lector"]),
        .executable(name: "lector-bench", targets: ["lector-bench"]),
        .executable(name: "lector-mqtt", targets: ["lector-mqtt"]),
        .library(name: "Lector", targets: ["Lector"]),
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
        .target(
            name: "Lector",
            dependencies: ["CTesseract", "CJPEG", "CV4L2"],
            resources: [.copy("Resources/demo")]
        ),
        .executableTarget(name: "lectord", dependencies: ["Lector"]),
        // libmosquitto's client API, found through pkg-config.
        .systemLibrary(
            name: "CMosquitto",
            pkgConfig: "libmosquitto",
            providers: [.apt(["libmosquitto-dev"])]
        ),
        // The MQTT bridge's logic: a client of lectord's socket and of a broker.
        .target(name: "LectorMQTT", dependencies: ["Lector", "CMosquitto"]),
        .executableTarget(name: "lector-mqtt", dependencies: ["LectorMQTT"]),
        .executableTarget(name: "lector", dependencies: ["Lector"]),
        // The benchmark's reference: what a C program calling Tesseract directly does.
        .target(
            name: "CBenchReference",
            linkerSettings: [.linkedLibrary("tesseract"), .linkedLibrary("lept")]
        ),
        .executableTarget(
            name: "lector-bench",
            dependencies: ["Lector", "CBenchReference"],
            resources: [.copy("Frames")]
        ),
        .testTarget(
            name: "LectorTests",
            dependencies: ["Lector"],
            exclude: ["Fixtures"]
        ),
        .testTarget(name: "LectorMQTTTests", dependencies: ["LectorMQTT", "Lector"]),
    ],
    swiftLanguageModes: [.v6]
)
