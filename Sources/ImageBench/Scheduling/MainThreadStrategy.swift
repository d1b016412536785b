/// The control: the load runs synchronously inside `cellForRow` on the main loop, as naive code
/// does. Nothing is concurrent, nothing can be cancelled, and every download and decode is a
/// frame the user sees stutter.
final class MainThreadStrategy: LoadScheduling {
    init() {}

    var runsInline: Bool { true }

    func submit(_ job: LoadJob) { job.run() }
    func cancel(_ job: LoadJob) {}
    func waitUntilIdle() {}
}
