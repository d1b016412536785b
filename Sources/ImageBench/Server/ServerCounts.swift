/// Requests the embedded server answered, and the faults it injected, over some span.
public struct ServerCounts: Sendable, Equatable {
    public var requests: Int
    public var faults: [ServerFaults.Kind: Int]

    public static func - (after: ServerCounts, before: ServerCounts) -> ServerCounts {
        ServerCounts(requests: after.requests - before.requests,
                     faults: after.faults.merging(before.faults.mapValues { -$0 }, uniquingKeysWith: +))
    }
}
