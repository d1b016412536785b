/// Requests the embedded server answered, the faults it injected, and the connections it
/// accepted (of them, those that spoke HTTP/2), over some span.
struct ServerCounts: Sendable, Equatable {
    var requests: Int
    var faults: [ServerFaults.Kind: Int]
    var connections = 0
    var http2Connections = 0

    static func - (after: ServerCounts, before: ServerCounts) -> ServerCounts {
        ServerCounts(requests: after.requests - before.requests,
                     faults: after.faults.merging(before.faults.mapValues { -$0 }, uniquingKeysWith: +),
                     connections: after.connections - before.connections,
                     http2Connections: after.http2Connections - before.http2Connections)
    }
}
