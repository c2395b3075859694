import BraceletDecoder
import Foundation
import Testing
@testable import BraceletStore

/// A summary-like document: per-slot arrays, as large as `slots` makes it.
private func document(slots: Int, seed: Int) -> [UInt8] {
    let values = (0..<slots).map { String(60 + ($0 * 7 + seed) % 40) }.joined(separator: ",")
    return Array(#"{"bpm":[\#(values)],"date":"2024-03-0\#(seed)","steps":[\#(values)]}"#.utf8)
}

@Test func zstdFramesRoundTripAndRefuseDamageOrAnotherSize() throws {
    let original = document(slots: 5_000, seed: 1)
    let frame = Zstd.compress(original)
    #expect(frame.count * 5 < original.count)
    #expect(try frame.withUnsafeBytes { try Zstd.decompress($0, size: original.count) } == original)
    #expect(throws: Zstd.Failure.self) { try frame.withUnsafeBytes { try Zstd.decompress($0, size: original.count - 1) } }
    var damaged = frame
    damaged[damaged.count / 2] ^= 0xFF
    damaged.removeLast(4)
    #expect(throws: Zstd.Failure.self) { try damaged.withUnsafeBytes { try Zstd.decompress($0, size: original.count) } }
}

@Test func gzipMembersConcatenatedReadAsOneStream() throws {
    let first = Array("{\"a\":1}\n".utf8), second = document(slots: 3_000, seed: 2) + [UInt8(ascii: "\n")]
    let file = Deflate.compress(first) + Deflate.compress(second)
    #expect(Array(file.prefix(2)) == [0x1F, 0x8B])  // a gzip member's magic
    #expect(try Deflate.decompress(file) == first + second)
    #expect(throws: (any Error).self) { try Deflate.decompress(Array(file.dropLast(3))) }
}

@Test func aSummaryIsStoredOnceAndEachEntryDeliversItsOwnVersion() throws {
    let folder = try TemporaryFolder()
    let store = try Store(path: folder.path("a.db"), now: fixedClock)
    let v1 = document(slots: 2_000, seed: 1), v2 = document(slots: 2_000, seed: 2)
    _ = try store.upsertDailySummary(device: "SN1", localDate: "2024-03-01", kind: "daily", canonical: v1)
    let sizes = try store.locked { db in
        (try db.scalarInt("SELECT count(*) FROM documents"), try db.scalarInt("SELECT sum(length(body)) FROM documents"),
         try db.scalarInt("SELECT sum(length(payload)) FROM outbox"))
    }
    #expect(sizes.0 == 1)
    // Compressed, and the outbox row holds only the envelope around a reference.
    #expect((sizes.1 ?? .max) * 5 < v1.count)
    #expect((sizes.2 ?? .max) < 400)
    _ = try store.upsertDailySummary(device: "SN1", localDate: "2024-03-01", kind: "daily", canonical: v2)
    let entries = try store.outboxEntries()
    #expect(entries.count == 2)
    // The first version's entry still delivers the first version, byte for byte.
    for (entry, summary) in zip(entries, [v1, v2]) {
        let payload = [UInt8](entry.payload)
        let range = try #require(payload.withUnsafeBufferPointer { StoredEnvelope.summaryRange(in: $0) })
        #expect(Array(payload[range]) == summary)
        #expect(payload.withUnsafeBufferPointer { Store.envelopeMatches(key: entry.key, hash: entry.contentHash, payload: $0) })
    }
    #expect(try store.dailySummary(device: "SN1", localDate: "2024-03-01", kind: "daily")?.json == Data(v2))
    #expect(try store.contentFindings().isEmpty)
}

@Test func aMissingOrDamagedDocumentIsReportedAndNeverDeliveredWithoutItsSummary() throws {
    let folder = try TemporaryFolder()
    let store = try Store(path: folder.path("a.db"), now: fixedClock)
    _ = try store.upsertDailySummary(device: "SN1", localDate: "2024-03-01", kind: "daily", canonical: document(slots: 100, seed: 3))
    try store.locked { db in try db.execute("UPDATE documents SET body = substr(body, 1, length(body) - 5)") }
    #expect(try store.contentFindings().map(\.area) == ["documents"])
    #expect(throws: StoreError.self) { try store.outboxEntries() }
    #expect(throws: StoreError.self) { try store.requireIntactForDelivery() }
    try store.locked { db in try db.execute("DELETE FROM documents") }
    #expect(try store.contentFindings().map(\.area) == ["daily_summaries", "outbox"])
    #expect(throws: StoreError.self) { try store.dailySummaries(device: "SN1", localDate: "2024-03-01") }
}

/// A database at schema 10 (before documents were kept once) with a day summary, a sleep session,
/// their outbox entries (one delivered) and a superseded version still pending, written as that
/// schema wrote them.
private func schema10Database(at path: String) throws -> (summaries: [[UInt8]], payloads: [String]) {
    let db = try Database(path: path)
    try Migrations.migrate(db, upTo: 10)
    let v1 = document(slots: 1_500, seed: 1), v2 = document(slots: 1_500, seed: 2), session = document(slots: 300, seed: 4)
    func envelope(_ key: String, _ kind: String, _ version: Int, _ summary: [UInt8], extra: [String: Int64] = [:]) -> String {
        let node = CanonicalJSON.Node(.object)
        node.child(forKey: "key").value = .string(key)
        node.child(forKey: "kind").value = .string(kind)
        node.child(forKey: "device").value = .string("SN1")
        node.child(forKey: "local_date").value = .string("2024-03-01")
        node.child(forKey: "version").value = .int(Int64(version))
        node.child(forKey: "content_hash").value = .string(SHA256.hex(summary))
        node.child(forKey: "summary").value = .canonical(summary)
        for (name, value) in extra { node.child(forKey: name).value = .int(value) }
        var out: [UInt8] = []
        CanonicalJSON.write(node, into: &out)
        return String(decoding: out, as: UTF8.self)
    }
    let payloads = [envelope("SN1/2024-03-01/daily/v1", "daily:daily", 1, v1),
                    envelope("SN1/2024-03-01/daily/v2", "daily:daily", 2, v2),
                    envelope("SN1/2024-03-01/sleep_session@100/v1", "sleep_session", 1, session, extra: ["start": 100, "stop": 200])]
    try db.execute("INSERT INTO devices (id, serial, first_seen_at, last_seen_at) VALUES (1, 'SN1', 0, 0)")
    let summary = try db.prepare("""
        INSERT INTO daily_summaries (device_id, local_date, kind, version, json, content_hash, updated_at) VALUES (1, '2024-03-01', 'daily', 2, ?1, ?2, 0)
        """)
    summary.bind(String(decoding: v2, as: UTF8.self), at: 1)
    summary.bind(SHA256.hex(v2), at: 2)
    try summary.run()
    let sleep = try db.prepare("""
        INSERT INTO sleep_sessions (device_id, start, stop, local_date, version, json, content_hash, updated_at) VALUES (1, 100, 200, '2024-03-01', 1, ?1, ?2, 0)
        """)
    sleep.bind(String(decoding: session, as: UTF8.self), at: 1)
    sleep.bind(SHA256.hex(session), at: 2)
    try sleep.run()
    for (index, (payload, summary)) in zip(payloads, [v1, v2, session]).enumerated() {
        let entry = try db.prepare("""
            INSERT INTO outbox (key, kind, device, local_date, version, content_hash, payload, state, next_attempt_at, created_at)
            VALUES (json_extract(?1, '$.key'), json_extract(?1, '$.kind'), 'SN1', '2024-03-01', json_extract(?1, '$.version'), ?2, ?1, ?3, 0, 0)
            """)
        entry.bind(payload, at: 1)
        entry.bind(SHA256.hex(summary), at: 2)
        entry.bind(index == 2 ? "delivered" : "pending", at: 3)
        try entry.run()
    }
    return ([v1, v2, session], payloads)
}

@Test func aSchema10DatabaseMovesToDocumentsInPlaceWithEveryRowAndEveryByte() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("old.db")
    let old = try schema10Database(at: path)
    let store = try Store(path: path)
    #expect(try store.schemaVersion() == Migrations.latestVersion)
    let entries = try store.outboxEntries()
    #expect(entries.map(\.key) == ["SN1/2024-03-01/daily/v1", "SN1/2024-03-01/daily/v2", "SN1/2024-03-01/sleep_session@100/v1"])
    #expect(entries.map(\.state) == [.pending, .pending, .delivered])
    // Every payload, the superseded version's included, is the envelope it was, byte for byte.
    #expect(entries.map { String(decoding: $0.payload, as: UTF8.self) } == old.payloads)
    #expect(try store.dailySummary(device: "SN1", localDate: "2024-03-01", kind: "daily")?.json == Data(old.summaries[1]))
    #expect(try store.sleepSessions(device: "SN1", localDate: "2024-03-01").map(\.json) == [Data(old.summaries[2])])
    let counts = try store.locked { db in
        (try db.scalarInt("SELECT count(*) FROM documents"),
         try db.scalarInt("SELECT count(*) FROM outbox WHERE payload LIKE '%\"summary\":null,%'"))
    }
    #expect(counts.0 == 3)
    #expect(counts.1 == 3)
    #expect(try store.contentFindings().isEmpty)
    // The pages the second copies held went back to the file system.
    #expect(try store.locked { try $0.scalarInt("PRAGMA freelist_count") } == 0)
}

@Test func aDamagedCopyInASchema10DatabaseNeverReplacesTheIntactOne() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("old.db")
    let old = try schema10Database(at: path)
    // The summary row's copy of v2 is damaged; the outbox entry's copy is intact.
    let db = try Database(path: path)
    try db.execute("UPDATE daily_summaries SET json = replace(json, '\"bpm\"', '\"bpx\"')")
    let store = try Store(path: path)
    #expect(try store.dailySummary(device: "SN1", localDate: "2024-03-01", kind: "daily")?.json == Data(old.summaries[1]))
    #expect(try store.contentFindings().isEmpty)
}

@Test func aBacklogIsReadABoundedBatchAtATimeInIdOrder() throws {
    let folder = try TemporaryFolder()
    let store = try Store(path: folder.path("a.db"), now: fixedClock)
    for day in 1...5 {
        _ = try store.upsertDailySummary(device: "SN1", localDate: "2024-03-0\(day)", kind: "daily", canonical: document(slots: 3_000, seed: day))
    }
    _ = try store.upsertSleepSession(device: "SN1", start: 100, stop: 200, localDate: "2024-03-05", canonical: document(slots: 10, seed: 9))
    let all = try store.outboxEntries(state: .pending)
    let size = all[0].payload.count
    // Two entries' worth of bytes: a batch stops once it holds them, and the next starts after its last id.
    var after: Int64 = 0, batches: [[String]] = []
    while case let batch = try store.pendingOutboxEntries(dueBy: fixedClock(), afterID: after, limit: 10, byteBudget: 2 * size),
          let last = batch.last {
        batches.append(batch.map(\.key))
        after = last.id
    }
    #expect(batches.map(\.count) == [2, 2, 2])
    #expect(batches.flatMap { $0 } == all.map(\.key))
    #expect(try store.pendingOutboxEntries(dueBy: fixedClock(), afterID: 0, limit: 10, byteBudget: 1).count == 1)
    #expect(try store.pendingOutboxEntries(filter: OutboxKindFilter(kinds: ["sleep"]), dueBy: fixedClock(), afterID: 0, limit: 10).map(\.kind)
        == ["sleep_session"])
    #expect(try store.pendingOutboxEntries(dueBy: fixedClock() - 1, afterID: 0, limit: 10).isEmpty)
    #expect(try store.pendingAttemptTimes() == Array(repeating: fixedClock(), count: 6))
    let listed = try store.outboxEntries(state: .pending, payloads: false)
    #expect(listed.map(\.key) == all.map(\.key))
    #expect(listed.allSatisfy { $0.payload.isEmpty })
}
