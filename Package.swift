// swift-tools-version: 6.0
import PackageDescription

// IMGBENCH_SANITIZE=thread (scripts/test): ThreadSanitizer on this package's own Swift code only,
// with -enable-testing for the tests' @testable import. The dependencies (NIO, BoringSSL, ...) keep
// the flags of a plain release build, so a build in the release folder compiles only this
// package's targets again (issue 33: BoringSSL was built twice, once per sanitizer setting).
// The library is compiled file by file (-no-whole-module-optimization), which uses both cores:
// about 3 minutes instead of 5 and a half for one whole-module job (the tests' target, about 4
// more, stays whole-module: file by file it was no faster).
let sanitizesThreads = Context.environment["IMGBENCH_SANITIZE"] == "thread"
let sanitizerSwiftFlags: [SwiftSetting] = sanitizesThreads ? [.unsafeFlags(["-sanitize=thread", "-enable-testing", "-no-whole-module-optimization"])] : []
let sanitizerTestFlags: [SwiftSetting] = sanitizesThreads ? [.unsafeFlags(["-sanitize=thread"])] : []
let sanitizerLinkFlags: [LinkerSetting] = sanitizesThreads ? [.unsafeFlags(["-sanitize=thread"])] : []

let package = Package(
    name: "imgbench",
    products: [
        .executable(name: "imgbench", targets: ["imgbench"]),
        .library(name: "ImageBench", targets: ["ImageBench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        // `--metrics-address`: Prometheus's counters, gauges, histograms and text exposition.
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // `imgbench serve --tls` and HTTP/2 (h2 by ALPN, h2c by prior knowledge) on the embedded server.
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.46.0"),
    ],
    targets: [
        // System libraries from Debian's -dev packages (scripts/setup installs the missing ones).
        .systemLibrary(
            name: "CCurl", pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]),
        // libcrypto (OpenSSL, already loaded by libcurl) makes the throwaway CA and server
        // certificate of `serve --tls` (tls_identity.c).
        .systemLibrary(
            name: "CCrypto", pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CJPEG", providers: [.apt(["libjpeg-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        // Typed wrappers for what Swift cannot call: curl's variadic setopt/getinfo and
        // libjpeg/libpng error handling, which needs setjmp/longjmp; and one C file per decoder
        // for libwebp, libavif and giflib (libwebp-dev, libavif-dev, libgif-dev), whose headers
        // are in /usr/include.
        .target(
            name: "CShims", dependencies: ["CCurl", "CCrypto", "CJPEG", "CPNG"],
            linkerSettings: [.linkedLibrary("curl"), .linkedLibrary("jpeg"), .linkedLibrary("png16"), .linkedLibrary("z"),
                             .linkedLibrary("webp"), .linkedLibrary("avif"), .linkedLibrary("gif"),
                             // avif.c's dav1d_default_settings must be in the dynamic symbol table
                             // for libavif's call to reach it.
                             .unsafeFlags(["-Xlinker", "--export-dynamic-symbol=dav1d_default_settings"])]),
        .target(
            name: "ImageBench",
            dependencies: [
                "CShims", "CCurl",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
            ],
            // Release builds skip the run-time exclusivity checks (about 3,000 instructions per
            // simulated request, 3% of a load run); debug builds and the tests keep them.
            swiftSettings: [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))] + sanitizerSwiftFlags,
            linkerSettings: sanitizerLinkFlags,
            plugins: ["BuildCommit"]),
        // The git commit, compiled into the library (environment.git_commit).
        .plugin(name: "BuildCommit", capability: .buildTool()),
        .executableTarget(
            name: "imgbench",
            dependencies: [
                "ImageBench",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: sanitizerSwiftFlags),
        // The deterministic work whose instructions scripts/instruction-check counts.
        .executableTarget(
            name: "harness-cost",
            dependencies: ["ImageBench", "CShims"],
            path: "Sources/HarnessCost",
            swiftSettings: sanitizerSwiftFlags),
        .testTarget(
            name: "ImageBenchTests",
            dependencies: ["ImageBench", "CShims"],
            // Files the tests read by path (#filePath), not resources of the bundle.
            exclude: ["Gate/Fixtures"],
            swiftSettings: sanitizerTestFlags),
    ],
    swiftLanguageModes: [.v6]
)
