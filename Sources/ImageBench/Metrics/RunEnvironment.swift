import CCurl
import CShims
import Foundation

/// What a run ran on, so two results can be compared knowingly and any run reproduced.
struct RunEnvironment: Sendable {
    let imgbenchVersion: String
    /// From IMGBENCH_GIT_COMMIT (scripts/imgbench sets it), else unknown.
    let gitCommit: String?
    let cpuModel: String
    let cpuCount: Int
    let kernel: String
    let swiftVersion: String
    let libcurl: String
    let libjpeg: String
    let libpng: String
    /// The decoders of the newer formats: libwebp, libavif (with its AV1 codecs), giflib.
    let libwebp: String
    let libavif: String
    let giflib: String
    let hostname: String

    static func capture() -> RunEnvironment {
        var name = utsname()
        uname(&name)
        func text<T>(_ field: T) -> String {
            withUnsafeBytes(of: field) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        }
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model = cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
            .map { String($0.split(separator: ":", maxSplits: 1).last ?? "").trimmingCharacters(in: .whitespaces) }
        return RunEnvironment(
            imgbenchVersion: ImageBenchVersion.current,
            // Compiled in by the BuildCommit plugin; the variable still overrides it (a binary
            // copied from elsewhere and run for a checkout).
            gitCommit: ProcessInfo.processInfo.environment["IMGBENCH_GIT_COMMIT"].flatMap { $0.isEmpty ? nil : $0 } ?? buildCommit,
            cpuModel: model ?? "unknown", cpuCount: ProcessInfo.processInfo.activeProcessorCount,
            kernel: "\(text(name.sysname)) \(text(name.release)) \(text(name.machine))",
            swiftVersion: compilerVersion, libcurl: String(cString: curl_version()),
            libjpeg: ImageFormat.jpeg.decoderLibrary, libpng: ImageFormat.png.decoderLibrary,
            libwebp: ImageFormat.webp.decoderLibrary, libavif: ImageFormat.avif.decoderLibrary, giflib: ImageFormat.gif.decoderLibrary,
            hostname: text(name.nodename))
    }

    /// The compiler that built imgbench (Swift exposes only comparisons, hence the ladder).
    static var compilerVersion: String {
        #if compiler(>=6.4)
        "6.4 or later"
        #elseif compiler(>=6.3)
        "6.3"
        #elseif compiler(>=6.2)
        "6.2"
        #elseif compiler(>=6.1)
        "6.1"
        #else
        "6.0"
        #endif
    }

    var json: [String: Any] {
        [
            "imgbench_version": imgbenchVersion, "git_commit": gitCommit ?? NSNull(), "cpu_model": cpuModel,
            "cpu_count": cpuCount, "kernel": kernel, "swift_version": swiftVersion, "libcurl": libcurl,
            "libjpeg": libjpeg, "libpng": libpng, "libwebp": libwebp, "libavif": libavif, "giflib": giflib, "hostname": hostname,
        ]
    }
}
