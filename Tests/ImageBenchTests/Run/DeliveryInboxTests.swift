import Foundation
import Testing
@testable import ImageBench

@Suite("The main loop's inbox")
struct DeliveryInboxTests {
    static func completion(_ id: Int) -> LoadCompletion {
        LoadCompletion(loadID: id, source: .network, outcome: .cancelled, stages: StageTimes(), bytesReceived: 0, sourcePixels: 0,
                       finishedAt: 0)
    }

    @Test("a frame takes everything posted since the last, in order, and nothing twice; the caller's buffer and the inbox's trade places rather than allocate")
    func takeAll() {
        let inbox = DeliveryInbox()
        var buffer = [Self.completion(99)]  // what the last frame handled: emptied, not returned
        var storages: [UnsafeRawPointer?] = []
        for round in 0..<4 {
            for id in 0..<3 { inbox.post(Self.completion(round * 10 + id)) }
            inbox.takeAll(into: &buffer)
            #expect(buffer.map(\.loadID) == [round * 10, round * 10 + 1, round * 10 + 2], "round \(round)")
            storages.append(buffer.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) })
        }
        inbox.takeAll(into: &buffer)
        #expect(buffer.isEmpty)
        // From the second round on, two buffers alternate: the third round's is the first's.
        #expect(storages[3] == storages[1] && storages[2] != storages[3], "\(storages)")
    }
}
