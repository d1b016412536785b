import Foundation

/// A real nginx (Debian's, installed by `scripts/setup --test`) serving a folder on loopback:
/// the third-party server the source tests point imgbench at. Everything it writes (pid, logs,
/// temporary files) stays in its own directory; it runs in the foreground as the test's child.
final class Nginx {
    let port: Int
    let process: Process
    let directory: URL

    var baseURL: String { "http://127.0.0.1:\(port)" }

    static var executable: String? {
        ["/usr/sbin/nginx", "/usr/bin/nginx", "/usr/local/sbin/nginx"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Serves `root` on `port` (default: a free one). `listen`: the listen directive's options
    /// (`http2` for h2c, `ssl http2` with the certificate lines in `extra`); `extra` goes into the
    /// server block. `accessLog`: where nginx logs each request it answered (tests wait on it);
    /// nil: nowhere. `logsConnections`: each line is `connection protocol status uri` instead.
    init(root: URL, port: Int? = nil, listen: String = "", extra: String = "", accessLog: URL? = nil, logsConnections: Bool = false) throws {
        guard let executable = Self.executable else { throw NginxError(description: "nginx is not installed (scripts/setup --test installs it)") }
        directory = try Fixtures.temporaryDirectory("nginx")
        self.port = try port ?? Self.freePort()
        let configuration = """
        user root;
        worker_processes 1;
        daemon off;
        pid \(directory.path)/nginx.pid;
        error_log \(directory.path)/error.log warn;
        events { worker_connections 256; }
        http {
            log_format connections '$connection $server_protocol $status $request_uri';
            access_log \(accessLog.map { $0.path + (logsConnections ? " connections" : "") } ?? "off");
            client_body_temp_path \(directory.path)/body;
            proxy_temp_path \(directory.path)/proxy;
            fastcgi_temp_path \(directory.path)/fastcgi;
            uwsgi_temp_path \(directory.path)/uwsgi;
            scgi_temp_path \(directory.path)/scgi;
            types { image/jpeg jpg; image/png png; image/gif gif; image/webp webp; text/html html; }
            default_type application/octet-stream;
            server {
                listen 127.0.0.1:\(self.port) \(listen);
                root \(root.path);
                \(extra)
            }
        }
        """
        let file = directory.appendingPathComponent("nginx.conf")
        try configuration.write(to: file, atomically: true, encoding: .utf8)
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["-p", directory.path, "-c", file.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Ready when it accepts connections (nginx has no readiness signal of its own).
        let deadline = Date().addingTimeInterval(20)
        while !Self.accepts(port: self.port) {
            guard process.isRunning, Date() < deadline else {
                let log = (try? String(contentsOf: directory.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
                stop()
                throw NginxError(description: "nginx did not start: \(log)")
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    /// SIGKILL to the master and its worker: the server dies as a crashed one does, without
    /// closing its connections gracefully.
    func kill() {
        let master = process.processIdentifier
        let workers = (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.compactMap { entry -> Int32? in
            guard let pid = Int32(entry),
                  let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return nil }
            // Fields after the command name: state, then the parent's pid.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && Int32(fields[1]) == master ? pid : nil
        } ?? []
        Foundation.kill(master, SIGKILL)
        for worker in workers { Foundation.kill(worker, SIGKILL) }
        process.waitUntilExit()
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()  // SIGTERM: nginx's fast shutdown, workers included
        process.waitUntilExit()
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    static func accepts(port: Int) -> Bool {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    /// A port nothing listens on right now (the kernel's choice for port 0).
    static func freePort() throws -> Int {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw NginxError(description: "no free port") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = getsockname(socket, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

struct NginxError: Error, CustomStringConvertible {
    let description: String
}
