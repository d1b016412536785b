import Foundation

/// A real Prometheus (Debian's, installed by `scripts/setup --test`) on loopback, scraping one
/// target every second, its storage in a folder of its own: what the live-metrics test points
/// `--metrics-address` at. It runs in the foreground as the test's child.
final class PrometheusServer {
    let port: Int
    let process: Process
    let directory: URL

    static var executable: String? {
        ["/usr/bin/prometheus", "/usr/local/bin/prometheus"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Scrapes `http://127.0.0.1:target/metrics` every second.
    init(scraping target: Int) throws {
        guard let executable = Self.executable else { throw NginxError(description: "prometheus is not installed (scripts/setup --test installs it)") }
        directory = try Fixtures.temporaryDirectory("prometheus")
        port = try Nginx.freePort()
        let configuration = """
        global:
          scrape_interval: 1s
          scrape_timeout: 1s
        scrape_configs:
          - job_name: imgbench
            static_configs:
              - targets: ['127.0.0.1:\(target)']
        """
        let file = directory.appendingPathComponent("prometheus.yml")
        try configuration.write(to: file, atomically: true, encoding: .utf8)
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--config.file=\(file.path)", "--storage.tsdb.path=\(directory.appendingPathComponent("data").path)",
                             "--web.listen-address=127.0.0.1:\(port)", "--log.level=warn"]
        process.standardOutput = FileHandle.nullDevice
        let log = directory.appendingPathComponent("prometheus.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: log)
        try process.run()
        // Ready when its readiness endpoint says so (the storage opened, the scrapes configured).
        let deadline = Date().addingTimeInterval(60)
        while (try? Self.get(port: port, path: "/-/ready"))?.status != 200 {
            guard process.isRunning, Date() < deadline else {
                stop()
                throw NginxError(description: "prometheus did not start: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
    }

    /// An instant query's samples: each series' labels and value (`/api/v1/query`).
    func query(_ expression: String) throws -> [(labels: [String: String], value: Double)] {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
        let encoded = expression.addingPercentEncoding(withAllowedCharacters: allowed) ?? expression
        let response = try Self.get(port: port, path: "/api/v1/query?query=\(encoded)")
        guard response.status == 200,
              let json = try JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? [String: Any],
              let data = json["data"] as? [String: Any], let result = data["result"] as? [[String: Any]] else {
            throw NginxError(description: "query \(expression): \(response.status) \(response.body)")
        }
        return result.compactMap { sample in
            guard let value = sample["value"] as? [Any], value.count == 2, let text = value[1] as? String, let number = Double(text) else { return nil }
            return ((sample["metric"] as? [String: String]) ?? [:], number)
        }
    }

    /// One scalar: the single sample's value, nil when the query found none.
    func scalar(_ expression: String) throws -> Double? { try query(expression).first?.value }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// A GET over a plain socket, HTTP/1.0 so the server closes when done: the status and body.
    static func get(port: Int, path: String) throws -> (status: Int, body: String) {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw NginxError(description: "cannot connect to port \(port)") }
        let request = Array("GET \(path) HTTP/1.0\r\nHost: 127.0.0.1:\(port)\r\n\r\n".utf8)
        guard send(socket, request, request.count, 0) == request.count else { throw NginxError(description: "cannot send to port \(port)") }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(socket, &buffer, buffer.count, 0)
            if count <= 0 { break }
            bytes += buffer[0..<count]
        }
        let text = String(decoding: bytes, as: UTF8.self)
        guard let split = text.range(of: "\r\n\r\n") else { throw NginxError(description: "no HTTP response from port \(port)") }
        let status = text[..<split.lowerBound].split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return (status, String(text[split.upperBound...]))
    }
}
