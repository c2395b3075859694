import BraceletStore
import Foundation
import Testing

/// A sink's state is read from its delivery log: failing while its attempts fail without the
/// receiver taking anything, paused after a configuration failure, ok once it takes an entry again
/// or refuses one for the entry's own sake (a dead letter means the sink works).
@Test func aSinksStateFollowsItsDeliveryLog() throws {
    let folder = try TemporaryFolder()
    let store = try Store(path: folder.path("a.db"))
    for day in 1...4 { try enqueue(store, device: "A", date: "2024-03-0\(day)", value: day) }
    let entries = try store.outboxEntries()
    #expect(try store.sinkHealth().isEmpty)
    let sink = "webhook http://127.0.0.1:1/in"
    try store.recordDelivered(entryID: entries[0].id, sink: sink, outcome: "delivered", httpStatus: 200, at: 1_000)
    #expect(try store.sinkHealth() == [SinkHealth(sink: sink, state: .ok, lastAttemptAt: 1_000, lastSuccessAt: 1_000, failuresInARow: 0, lastError: nil)])
    for at in [2_000, 3_000] as [Int64] {
        try store.recordFailedAttempt(entryID: entries[1].id, sink: sink, outcome: "transient_failure",
                                      error: "no answer within 10 s (--timeout)", httpStatus: nil, at: at, retryAt: at + 1)
    }
    #expect(try store.sinkHealth() == [SinkHealth(sink: sink, state: .failing, lastAttemptAt: 3_000, lastSuccessAt: 1_000,
                                                  failuresInARow: 2, lastError: "no answer within 10 s (--timeout)")])
    try store.recordFailedAttempt(entryID: entries[1].id, sink: sink, outcome: "configuration_failure",
                                  error: "TLS failed", httpStatus: nil, at: 4_000, retryAt: 4_000)
    #expect(try store.sinkHealth().first?.state == .paused)
    #expect(try store.sinkHealth().first?.failuresInARow == 3)
    try store.recordFailedAttempt(entryID: entries[1].id, sink: sink, outcome: "permanent_failure",
                                  error: "HTTP 422", httpStatus: 422, at: 5_000, retryAt: nil)
    #expect(try store.sinkHealth() == [SinkHealth(sink: sink, state: .ok, lastAttemptAt: 5_000, lastSuccessAt: 1_000, failuresInARow: 0, lastError: nil)])
}
