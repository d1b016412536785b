/// Requests the embedded server answered, and the faults it injected, over some span.
struct ServerCounts: Sendable, Equatable {
    var requests: Int
    var faults: [ServerFaults.Kind: Int]

    static func - (after: ServerCounts, before: ServerCounts) -> ServerCounts {
        ServerCounts(requests: after.requests - before.requests,
                     faults: after.faults.merging(before.faults.mapValues { -$0 }, uniquingKeysWith: +))
    }
}
