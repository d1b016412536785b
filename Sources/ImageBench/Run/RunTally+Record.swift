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

    /// A load that delivered its image: its stages.
    mutating func recordStages(_ stages: StageTimes, fromNetwork: Bool) {
        recorder.all.stages.record(stages, fromNetwork: fromNetwork)
        // A crowd user's own, for clients.csv, at two digits.
        if fromNetwork && inCrowd { own.all.stages.recordTimeToFirstByte(nanoseconds: stages.timeToFirstByte) }
    }

    /// An HTTP request answered whole (its load's last attempt neither failed nor was cut), in
    /// the second it finished: k6's http_req_duration counts every one, delivered or not (a load
    /// cancelled after its answer arrived, a body that failed to decode), so a load test's
    /// "requests answered" is its 2xx count.
    mutating func recordAnswered(_ stages: StageTimes, finishedAt: UInt64) {
        let offset = finishedAt - min(finishedAt, origin)
        recorder.timeline.networkLoad(timeToFirstByte: stages.timeToFirstByte, transfer: stages.transfer, at: offset)
        recorder.all.request.record(nanoseconds: stages.timeToFirstByte + stages.transfer)
        if inCrowd { own.all.request.record(nanoseconds: stages.timeToFirstByte + stages.transfer) }
    }

    /// The memory cache's hit thresholds at the run's end (the crowd's, in a crowd).
    mutating func recordMemoryHitThresholds(_ bytes: [Int]) {
        CacheSizeCurve.record(bytes, into: &recorder.all.memoryHitThresholds)
    }
}
