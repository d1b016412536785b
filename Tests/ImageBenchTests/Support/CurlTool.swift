import Foundation
import Testing

/// curl's command-line tool as a real HTTP/2 and TLS peer (libcurl with nghttp2 and OpenSSL).
enum CurlTool {
    static var path: String? {
        ["/usr/bin/curl", "/bin/curl"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs curl (silent; errors shown on the test's log unless a failure is expected) to the
    /// end: its exit status and standard output.
    static func run(_ arguments: [String], showErrors: Bool = true) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(path, "curl"))
        process.arguments = [showErrors ? "-sS" : "-s"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }

    /// One transfer's `-w` line, as `transfer(_:)` asks curl to write it.
    struct Transfer: Equatable {
        let url: String
        let httpVersion: String
        let status: Int
        let firstByteSeconds: Double
        let exitCode: Int
    }

    /// The `-w` format `transfers(in:)` reads, one line per transfer.
    static let writeOut = "%{url_effective} %{http_version} %{http_code} %{time_starttransfer} %{exitcode}\\n"

    static func transfers(in output: String) -> [Transfer] {
        output.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ").map(String.init)
            guard fields.count == 5, let status = Int(fields[2]), let firstByte = Double(fields[3]), let exit = Int(fields[4]) else {
                return nil
            }
            return Transfer(url: fields[0], httpVersion: fields[1], status: status, firstByteSeconds: firstByte, exitCode: exit)
        }
    }
}
