/// The control: the load runs synchronously inside `cellForRow` on the main loop, as naive code
/// does. Nothing is concurrent, nothing can be cancelled, and every download and decode is a
/// frame the user sees stutter.
public final class MainThreadStrategy: LoadScheduling {
    public init() {}

    public var runsInline: Bool { true }

    public func submit(_ job: LoadJob) { job.run() }
    public func cancel(_ job: LoadJob) {}
    public func waitUntilIdle() {}
}
