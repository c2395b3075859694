import Foundation
import Testing
@testable import BraceletStore

/// The plan SQLite makes for `sql` on `store`: one line per step (EXPLAIN QUERY PLAN's detail).
private func queryPlan(_ store: Store, _ sql: String) throws -> [String] {
    try store.locked { db in
        let statement = try db.prepare("EXPLAIN QUERY PLAN " + sql)
        var steps: [String] = []
        while try statement.step() { steps.append(statement.text(at: 3) ?? "") }
        return steps
    }
}

/// Sink health (read by `gateway status` and every `/metrics` scrape) reads the delivery log through
/// its indexes by sink: no step of its plan scans the log, which grows by a row per attempt for as
/// long as the gateway runs (it was grouped whole three times per call). Its figures stay those of
/// the log: two sinks, one failing since its last success, one that never succeeded.
@Test func sinkHealthReadsTheDeliveryLogThroughItsIndexes() throws {
    let folder = try TemporaryFolder()
    let store = try Store(path: folder.path("h.db"))
    for day in 1...2 {
        _ = try store.upsertDailySummary(device: "A", localDate: "2024-03-0\(day)", kind: "daily", json: Data(#"{"steps":\#(day)}"#.utf8))
    }
    let entries = try store.outboxEntries()
    let (a, b) = ("webhook https://a.example/in", "postgres postgresql://b.example/fleet")
    try store.recordDelivered(entryID: entries[0].id, sink: a, outcome: "delivered", httpStatus: 200, at: 500)
    for at in 1...40 as ClosedRange<Int64> {
        try store.recordFailedAttempt(entryID: entries[1].id, sink: at.isMultiple(of: 2) ? a : b, outcome: "transient_failure",
                                      error: "no answer at \(at)", httpStatus: nil, at: 1_000 + at, retryAt: 2_000 + at)
    }
    #expect(try store.sinkHealth() == [
        SinkHealth(sink: b, state: .failing, lastAttemptAt: 1_039, lastSuccessAt: nil, failuresInARow: 20, lastError: "no answer at 39"),
        SinkHealth(sink: a, state: .failing, lastAttemptAt: 1_040, lastSuccessAt: 500, failuresInARow: 20, lastError: "no answer at 40"),
    ])
    let plan = try queryPlan(store, Store.sinkHealthQuery)
    let scans = plan.filter { $0.hasPrefix("SCAN") && !$0.hasPrefix("SCAN sinks") && !$0.hasPrefix("SCAN h") && !$0.hasPrefix("SCAN CONSTANT ROW") }
    #expect(scans.isEmpty, "steps that read the whole delivery log: \(scans) (plan: \(plan))")
    #expect(plan.contains { $0.contains("delivery_log_by_sink") }, "\(plan)")
}
