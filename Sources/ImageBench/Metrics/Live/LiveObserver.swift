/// What a run tells the live metrics (`--metrics-address`) as it goes: the one seam between a
/// run's tally and them. `RunTally.account` hands it every worker report, so its HTTP requests
/// are counted where summary.csv's `http_requests` is, by the same rule. A run without the flag
/// holds none and pays one nil check per report: no lock, no atomic.
protocol LiveObserver: Sendable {
    /// A worker's report reached the main loop: its HTTP requests, bytes and failure. Called on
    /// each user's main-loop thread, so from several threads at once in a `--clients` crowd.
    func account(_ completion: LoadCompletion)
    /// A simulated user started scrolling (its first vsync), or ended (its last frame).
    func userBegan()
    func userEnded()
}
