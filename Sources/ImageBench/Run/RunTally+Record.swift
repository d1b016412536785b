/// Distributions a run records as it goes, the user's own or, in a crowd, the crowd's.
extension RunTally {
    /// The settle samples, at the run's end: the user's own, and the crowd's.
    mutating func recordSettle() {
        for sample in settle.samples {
            recorder.all.settle.record(nanoseconds: sample.nanoseconds)
            if inCrowd { distributions.settle.record(nanoseconds: sample.nanoseconds) }
        }
        distributions.settleSamples = settle.samples
        if inCrowd { recorder.all.settleSamples += settle.samples }
    }

    /// Time to first image of a displayed request: its preview's frame or its image's.
    mutating func recordFirstImage(nanoseconds: UInt64) {
        recorder.all.firstImage.record(nanoseconds: nanoseconds)
    }

    mutating func recordReady(nanoseconds: UInt64) {
        recorder.all.ready.record(nanoseconds: nanoseconds)
    }
}
