import Foundation
import Testing
@testable import BraceletStore

private func json(_ text: String) -> Data { Data(text.utf8) }

@Test func summaryChangeWritesOneOutboxEntryAndEqualContentWritesNothing() throws {
    let folder = try TemporaryFolder()
    let store = try Store(path: folder.path("a.db"), now: fixedClock)
    let first = try store.upsertDailySummary(device: "SN1", localDate: "2024-03-01", kind: "daily",
                                             json: json(#"{"steps": 8000, "restingHR": 58}"#))
    #expect(first == .changed(version: 1, outboxKey: "SN1/2024-03-01/daily/v1"))
    // Same content, other key order and spacing: nothing written.
    let same = try store.upsertDailySummary(device: "SN1", localDate: "2024-03-01", kind: "daily",
                                            json: json(#"{"restingHR":58,"steps":8000}"#))
    #expect(same == .unchanged(version: 1))
    #expect(try store.outboxEntries().count == 1)
    let changed = try store.upsertDailySummary(device: "SN1", localDate: "2024-03-01", kind: "daily",
                                               json: json(#"{"steps": 8500, "restingHR": 58}"#))
    #expect(changed == .changed(version: 2, outboxKey: "SN1/2024-03-01/daily/v2"))

    let entries = try store.outboxEntries()
    #expect(entries.map(\.key) == ["SN1/2024-03-01/daily/v1", "SN1/2024-03-01/daily/v2"])
    #expect(entries.map(\.state) == [.pending, .pending])
    #expect(entries[0].kind == "daily:daily")
    #expect(entries[0].createdAt == 1_700_000_000_000)
    // Each entry keeps the snapshot of its version.
    let envelope = try #require(try JSONSerialization.jsonObject(with: entries[0].payload) as? [String: Any])
    #expect(envelope["key"] as? String == "SN1/2024-03-01/daily/v1")
    #expect(envelope["version"] as? Int == 1)
    #expect(envelope["local_date"] as? String == "2024-03-01")
    #expect((envelope["summary"] as? [String: Any])?["steps"] as? Int == 8000)
    let canonical = Data(#"{"restingHR":58,"steps":8000}"#.utf8)
    #expect(entries[0].contentHash == SHA256.hex(canonical))
    #expect(try store.dailySummary(device: "SN1", localDate: "2024-03-01", kind: "daily")?.json
        == Data(#"{"restingHR":58,"steps":8500}"#.utf8))
}

@Test func summaryAndOutboxAreOneTransaction() throws {
    let folder = try TemporaryFolder()
    let store = try Store(path: folder.path("a.db"))
    _ = try store.upsertDailySummary(device: "SN1", localDate: "2024-03-01", kind: "daily", json: json(#"{"steps":1}"#))
    // Make the outbox insert of version 2 fail (its key is taken) and check the summary did not move.
    try store.locked { db in
        try db.execute("""
            INSERT INTO outbox (key, kind, device, local_date, version, content_hash, payload, next_attempt_at, created_at)
            VALUES ('SN1/2024-03-01/daily/v2', 'x', 'SN1', '2024-03-01', 2, 'h', '{}', 0, 0)
            """)
    }
    #expect(throws: StoreError.self) {
        try store.upsertDailySummary(device: "SN1", localDate: "2024-03-01", kind: "daily", json: json(#"{"steps":2}"#))
    }
    let stored = try #require(try store.dailySummary(device: "SN1", localDate: "2024-03-01", kind: "daily"))
    #expect(stored.version == 1)
    #expect(stored.json == Data(#"{"steps":1}"#.utf8))
}

@Test func encodableSummariesAndSleepSessionsGoThroughTheOutbox() throws {
    struct Steps: Encodable { var total: Int; var goal: Int? }
    let folder = try TemporaryFolder()
    let store = try Store(path: folder.path("a.db"))
    #expect(try store.upsertDailySummary(device: "SN1", localDate: "2024-03-02", kind: "steps", value: Steps(total: 10, goal: nil))
        == .changed(version: 1, outboxKey: "SN1/2024-03-02/steps/v1"))
    #expect(try store.upsertDailySummary(device: "SN1", localDate: "2024-03-02", kind: "steps", value: Steps(total: 10, goal: nil))
        == .unchanged(version: 1))
    let sleep = json(#"{"deepSeconds": 3600}"#)
    #expect(try store.upsertSleepSession(device: "SN1", start: 1_709_330_400, stop: 1_709_355_600, localDate: "2024-03-02", json: sleep)
        == .changed(version: 1, outboxKey: "SN1/2024-03-02/sleep_session@1709330400/v1"))
    #expect(try store.upsertSleepSession(device: "SN1", start: 1_709_330_400, stop: 1_709_355_600, localDate: "2024-03-02", json: sleep)
        == .unchanged(version: 1))
    // Same content but the session now ends later: a new version.
    #expect(try store.upsertSleepSession(device: "SN1", start: 1_709_330_400, stop: 1_709_356_200, localDate: "2024-03-02", json: sleep)
        .version == 2)
    let sessions = try store.sleepSessions(device: "SN1", localDate: "2024-03-02")
    #expect(sessions.map(\.stop) == [1_709_356_200])
    let payload = try #require(try store.outboxEntries().last?.payload)
    let envelope = try #require(try JSONSerialization.jsonObject(with: payload) as? [String: Any])
    #expect(envelope["stop"] as? Int == 1_709_356_200)
    #expect(try store.summaryDates(device: "SN1") == ["2024-03-02"])
}

@Test func badSummaryInputIsRefusedWithAReason() throws {
    let folder = try TemporaryFolder()
    let store = try Store(path: folder.path("a.db"))
    #expect(throws: StoreError.self) { try store.upsertDailySummary(device: "SN1", localDate: "2024-13-01", kind: "daily", json: json("{}")) }
    #expect(throws: StoreError.self) { try store.upsertDailySummary(device: "SN1", localDate: "2024-03-01", kind: "a/b", json: json("{}")) }
    #expect {
        try store.upsertDailySummary(device: "SN1", localDate: "2024-03-01", kind: "daily", json: json("{not json"))
    } throws: { error in
        "\(error)".contains("summary daily of SN1 on 2024-03-01 is not valid JSON")
    }
    #expect(throws: StoreError.self) { try store.upsertSleepSession(device: "SN1", start: 10, stop: 5, localDate: "2024-03-01", json: json("{}")) }
    #expect(try store.outboxEntries().isEmpty)
}

@Test func outboxHeadsKeepEachDeviceInOrder() throws {
    let folder = try TemporaryFolder()
    let store = try Store(path: folder.path("a.db"), now: fixedClock)
    _ = try store.upsertDailySummary(device: "A", localDate: "2024-03-01", kind: "daily", json: json(#"{"v":1}"#))
    _ = try store.upsertDailySummary(device: "B", localDate: "2024-03-01", kind: "daily", json: json(#"{"v":1}"#))
    _ = try store.upsertDailySummary(device: "A", localDate: "2024-03-01", kind: "daily", json: json(#"{"v":2}"#))
    #expect(try store.pendingOutboxHeads().map(\.key) == ["A/2024-03-01/daily/v1", "B/2024-03-01/daily/v1"])

    let a1 = try store.pendingOutboxHeads()[0]
    try store.recordFailedAttempt(entryID: a1.id, sink: "test", outcome: "transient_failure", error: "HTTP 503",
                                  httpStatus: 503, at: 1_000, retryAt: 5_000)
    var heads = try store.pendingOutboxHeads()
    #expect(heads.map(\.key) == ["A/2024-03-01/daily/v1", "B/2024-03-01/daily/v1"], "A's v2 waits behind A's v1")
    #expect(heads[0].attempts == 1)
    #expect(heads[0].nextAttemptAt == 5_000)
    #expect(heads[0].lastError == "HTTP 503")

    try store.recordDelivered(entryID: a1.id, sink: "test", outcome: "delivered", httpStatus: 200, at: 6_000)
    heads = try store.pendingOutboxHeads()
    #expect(heads.map(\.key).sorted() == ["A/2024-03-01/daily/v2", "B/2024-03-01/daily/v1"])
    try store.recordFailedAttempt(entryID: heads.first { $0.device == "B" }!.id, sink: "test", outcome: "permanent_failure",
                                  error: "HTTP 422", httpStatus: 422, at: 7_000, retryAt: nil)
    #expect(try store.outboxCounts() == OutboxCounts(pending: 1, delivered: 1, dead: 1))
    let dead = try store.outboxEntries(state: .dead)
    #expect(dead.map(\.key) == ["B/2024-03-01/daily/v1"])
    #expect(dead[0].lastError == "HTTP 422")
    #expect(try store.deliveryLog(entryID: a1.id).map(\.attempt) == [1, 2])
    #expect(try store.deliveryLog(entryID: a1.id).map(\.outcome) == ["transient_failure", "delivered"])
    #expect(try store.requeueDeadEntries() == 1)
    #expect(try store.outboxCounts() == OutboxCounts(pending: 2, delivered: 1, dead: 0))
}

@Test func vitalityMetricsAreReplacedOnlyWhenTheyChange() throws {
    let folder = try TemporaryFolder()
    let store = try Store(path: folder.path("a.db"))
    #expect(try store.upsertVitalityMetrics(device: "SN1", localDate: "2024-03-01", json: json(#"{"steps":5}"#)))
    #expect(try !store.upsertVitalityMetrics(device: "SN1", localDate: "2024-03-01", json: json(#"{ "steps" : 5 }"#)))
    #expect(try store.upsertVitalityMetrics(device: "SN1", localDate: "2024-03-01", json: json(#"{"steps":6}"#)))
    let rows = try store.vitalityMetrics(device: "SN1", fromDate: "2024-03-01", toDate: "2024-03-31")
    #expect(rows.map(\.localDate) == ["2024-03-01"])
    #expect(rows.first?.json == Data(#"{"steps":6}"#.utf8))
}
