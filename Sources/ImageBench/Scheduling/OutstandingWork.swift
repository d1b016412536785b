import Foundation

/// Counts submitted jobs that have not finished, so `waitUntilIdle` can block until none is left.
///
/// `@unchecked Sendable`: `count` is only read and written while holding `condition`.
final class OutstandingWork: @unchecked Sendable {
    private let condition = NSCondition()
    private var count = 0

    func add() {
        condition.lock()
        count += 1
        condition.unlock()
    }

    func done() {
        condition.lock()
        count -= 1
        if count == 0 { condition.broadcast() }
        condition.unlock()
    }

    func waitUntilNone() {
        condition.lock()
        while count > 0 { condition.wait() }
        condition.unlock()
    }
}
