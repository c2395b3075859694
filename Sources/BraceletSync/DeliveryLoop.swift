import BraceletStore

/// The two loops every forwarder runs around its one pass (`deliverDue`): ``Forwarder`` for one
/// sink, and the fleet's batched forwarder. Written once so both wait, pause and survive a locked
/// database the same way; each forwarder supplies its pass and how it reads its pending entries.
package enum DeliveryLoop {
    /// Runs `pass` until nothing the sink takes is pending, sleeping through backoffs however long
    /// an outage lasts (reporting each wait as ``ForwarderEvent/waiting(milliseconds:pending:)``).
    /// Returns early when the sink pauses (``ForwarderReport/pausedReason``).
    ///
    /// - Parameter pendingAttemptTimes: the next attempt time (Unix ms) of every pending entry the
    ///   sink takes.
    package static func drain(clock: any ForwarderClock, onEvent: (ForwarderEvent) -> Void,
                              pass: () async throws -> ForwarderReport,
                              pendingAttemptTimes: () async throws -> [Int64]) async throws -> ForwarderReport {
        var report = ForwarderReport()
        while true {
            report.add(try await pass())
            if report.pausedReason != nil { return report }
            let pending = try await pendingAttemptTimes()
            guard let next = pending.min() else { return report }
            let wait = Forwarder.milliseconds(until: next, now: clock.nowMilliseconds())
            if wait > 0 {
                onEvent(.waiting(milliseconds: wait, pending: pending.count))
                try await clock.sleep(milliseconds: wait)
            }
        }
    }

    /// Runs `pass` forever, then waits `pollMilliseconds` (or less, until `nextRetry` when it names
    /// an earlier time). A paused sink is probed again after `pausedMilliseconds`; a database locked
    /// by another process is waited out. Stops only when the task is cancelled or the store fails
    /// with anything else.
    package static func follow(clock: any ForwarderClock, pollMilliseconds: Int64, pausedMilliseconds: Int64,
                               pass: () async throws -> ForwarderReport,
                               nextRetry: () async throws -> Int64?) async throws {
        while true {
            try Task.checkCancellation()
            var wait = pollMilliseconds
            do {
                if try await pass().pausedReason != nil {
                    try await clock.sleep(milliseconds: pausedMilliseconds)
                    continue
                }
                if let next = try await nextRetry() {
                    wait = min(wait, Forwarder.milliseconds(until: next, now: clock.nowMilliseconds()))
                }
            } catch let error as StoreError {
                guard case .locked = error else { throw error }
            }
            try await clock.sleep(milliseconds: max(1, wait))
        }
    }
}
