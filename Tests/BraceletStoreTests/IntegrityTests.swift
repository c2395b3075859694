import BraceletDecoder
import Foundation
import Testing
@testable import BraceletStore

/// Changes `bytes` at `offset` of the file as if through SQLite (the page keeps a valid checksum),
/// so that the row checks, content hashes and SQLite's structure checks are what must find it.
private func damage(_ path: String, at offset: UInt64, with bytes: [UInt8]) throws {
    try overwrite(path, at: offset, with: bytes, resealing: true)
}

/// A checkpointed database with three slots and two beats of device SN1; returns its path.
private func smallDatabase(_ folder: TemporaryFolder) throws -> String {
    let path = folder.path("d.db")
    let store = try Store(path: path, now: fixedClock)
    var slot = sampleSlot(start: 1_774_742_400, bpm: 61)
    slot.skinTempC = 33.25
    _ = try store.insertSlots([slot, sampleSlot(start: 1_774_742_460, bpm: 62), sampleSlot(start: 1_774_742_520, bpm: 63)],
                              device: "SN1", model: .v1)
    _ = try store.insertBeats([Beat(timeMs: 1_774_742_400_000, rrMs: nil), Beat(timeMs: 1_774_742_400_900, rrMs: 900)],
                              device: "SN1", model: .v1)
    try store.locked { try $0.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
    return path
}

/// The byte offset of the first occurrence of `needle` in the file.
/// A database with one daily summary `{"average":61}` (kept once, compressed, in `documents`) and
/// its outbox entry, checkpointed so both sit in the main file where a test can damage them.
private func summaryWithItsOutboxEntry(_ folder: TemporaryFolder) throws -> String {
    let path = folder.path("s.db")
    let store = try Store(path: path, now: fixedClock)
    _ = try store.upsertDailySummary(device: "SN1", localDate: "2026-03-29", kind: "bpm", json: Data(#"{"average":61}"#.utf8))
    try store.locked { try $0.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
    return path
}

private func offset(of needle: [UInt8], in path: String) throws -> UInt64 {
    let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    let index = try #require((0...(bytes.count - needle.count)).first { bytes[$0..<($0 + needle.count)].elementsEqual(needle) })
    return UInt64(index)
}

@Suite struct IntegrityTests {
    @Test func anIntactDatabaseHasNoFindings() throws {
        let folder = try TemporaryFolder()
        let store = try Store(path: try smallDatabase(folder))
        #expect(try store.integrityFindings(full: true).isEmpty)
        try store.requireIntactMeasurements(device: "SN1")
    }

    @Test func aChangedValueInsideASlotRowIsFoundBeforeItIsRead() throws {
        let folder = try TemporaryFolder()
        let path = try smallDatabase(folder)
        // 33.25 is stored as an 8-byte big-endian IEEE double; change its last byte.
        let at = try offset(of: Array(withUnsafeBytes(of: (33.25).bitPattern.bigEndian, Array.init)), in: path)
        try damage(path, at: at + 7, with: [0x01])
        let store = try Store(path: path, readOnly: true)
        #expect(try store.structureFindings(full: true).isEmpty)  // SQLite's own checks cannot see it
        #expect(try store.measurementFindings() == [IntegrityFinding(area: "slots", problem: "1 rows changed since they were written (first: SN1 at start 1774742400)")])
        #expect(throws: StoreError.self) { try store.requireIntactMeasurements(device: "SN1") }
    }

    @Test func aSpanCheckSeesOnlyTheDamageInsideTheSpan() throws {
        let folder = try TemporaryFolder()
        let path = try smallDatabase(folder)
        let at = try offset(of: Array(withUnsafeBytes(of: (33.25).bitPattern.bigEndian, Array.init)), in: path)
        try damage(path, at: at + 7, with: [0x01])  // the slot at 1_774_742_400
        let store = try Store(path: path, readOnly: true)
        #expect(try store.measurementFindings(device: "SN1", seconds: 1_774_742_400..<1_774_742_401).map(\.area) == ["slots"])
        #expect(throws: StoreError.self) { try store.requireIntactMeasurements(device: "SN1", seconds: 1_774_742_000..<1_774_743_000) }
        // The slots after it and the beats are intact.
        #expect(try store.measurementFindings(device: "SN1", seconds: 1_774_742_401..<1_774_743_000).isEmpty)
        try store.requireIntactMeasurements(device: "SN1", seconds: Int64.min..<1_774_742_400)
        try store.requireIntactMeasurements(device: "SN2", seconds: Int64.min..<Int64.max)
    }

    @Test func aChangedSummaryDocumentIsFound() throws {
        let folder = try TemporaryFolder()
        let path = try summaryWithItsOutboxEntry(folder)
        // The document is the summary's zstd frame; change its last byte (inside the checksum of
        // the frame's content or the content itself).
        let frame = Zstd.compress(Array(#"{"average":61}"#.utf8))
        let at = try offset(of: frame, in: path)
        try damage(path, at: at + UInt64(frame.count) - 1, with: [frame[frame.count - 1] ^ 0x5A])
        let store = try Store(path: path, readOnly: true)
        #expect(try store.contentFindings().map(\.area) == ["documents"])
        #expect(throws: StoreError.self) { try store.requireIntactContent(of: "outbox") }
        #expect(throws: StoreError.self) { try store.dailySummaries(device: "SN1", localDate: "2026-03-29") }
        try store.requireIntactContent(of: "vitality_metrics")
    }

    @Test func aWriterHashesTheDocumentsStillToBeDeliveredAndDbCheckEveryOne() throws {
        let folder = try TemporaryFolder()
        let path = try summaryWithItsOutboxEntry(folder)
        let frame = Zstd.compress(Array(#"{"average":61}"#.utf8))
        let at = try offset(of: frame, in: path)
        try damage(path, at: at + UInt64(frame.count) - 1, with: [frame[frame.count - 1] ^ 0x5A])
        let store = try Store(path: path)
        // Its outbox entry is still to be delivered: a writer refuses the file.
        #expect(throws: StoreError.self) { try store.requireIntactForDelivery() }
        // Delivered, the document is no longer hashed at every open (that cost would grow with the
        // history); `db check` and every read of it still find the damage.
        try store.locked { try $0.execute("UPDATE outbox SET state = 'delivered'") }
        try store.requireIntactForDelivery()
        #expect(try store.contentFindings().map(\.area) == ["documents"])
        #expect(throws: StoreError.self) { try store.dailySummaries(device: "SN1", localDate: "2026-03-29") }
    }

    @Test func aDeliveryChecksThePayloadsStillToBeSentAndOnlyThose() throws {
        let folder = try TemporaryFolder()
        let path = try summaryWithItsOutboxEntry(folder)
        // Change the key in the outbox payload's envelope (the key column keeps it without the JSON).
        let at = try offset(of: Array(#""key":"SN1/2026-03-29/bpm/v1""#.utf8), in: path)
        try damage(path, at: at + 7, with: Array("X".utf8))
        let store = try Store(path: path)
        #expect(try store.contentFindings().map(\.area) == ["outbox"])
        #expect(throws: StoreError.self) { try store.requireIntactForDelivery() }
        // Once delivered, the damaged entry is no longer what a delivery reads: db check still reports it.
        try store.locked { try $0.execute("UPDATE outbox SET state = 'delivered'") }
        try store.requireIntactForDelivery()
        #expect(try store.contentFindings().map(\.area) == ["outbox"])
    }

    @Test func backupIsAConsistentCheckedCopyAndNeverReplacesAFile() throws {
        let folder = try TemporaryFolder()
        let store = try Store(path: try smallDatabase(folder))
        let copy = folder.path("copy.db")
        try store.backup(to: copy)
        let restored = try Store(path: copy, readOnly: true)
        #expect(try restored.slots(device: "SN1", from: 0, to: Int64.max / 2).map(\.bpm) == [61, 62, 63])
        #expect(try restored.integrityFindings(full: true).isEmpty)
        #expect(throws: StoreError.self) { try store.backup(to: copy) }
    }

    @Test func everyLineOfTheStructureCheckIsItsOwnFinding() throws {
        let folder = try TemporaryFolder()
        let path = try databaseWithAFullBeatHour(folder)
        // Beat 800 lies on an overflow page; its first 4 bytes link to the next one: point them past
        // the end of the file.
        let page = try offset(of: beat800, in: path) / 4096 * 4096
        try damage(path, at: page, with: [0x00, 0x00, 0x27, 0x0F])
        let findings = try Store(path: path, readOnly: true).structureFindings(full: false)
        // SQLite reports this as one row of several lines; each line is a finding of its own.
        #expect(findings.contains { $0.problem.contains("invalid page number 9999") }, "\(findings)")
        #expect(findings.allSatisfy { !$0.problem.contains("\n") && !$0.problem.hasPrefix("***") }, "\(findings)")
    }

    @Test func theMigrationKeepsEveryRowAndChecksIt() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("old.db")
        do {
            let old = try Store(path: path, migratingTo: 3)
            try old.locked { db in
                try db.execute("""
                    INSERT INTO devices (id, serial, first_seen_at, last_seen_at) VALUES (1, 'SN1', 0, 0);
                    INSERT INTO slots (device_id, start, interval_s, bpm, skin_temp_c) VALUES (1, 60, 60, 58, 33.5);
                    INSERT INTO beats (device_id, time_ms, rr_ms) VALUES (1, 60000, 1010);
                    """)
            }
        }
        let store = try Store(path: path)
        #expect(try store.schemaVersion() == Store.currentSchemaVersion)
        #expect(try store.slots(device: "SN1", from: 0, to: 100).map(\.bpm) == [58])
        #expect(try store.beats(device: "SN1", fromMs: 0, toMs: 100_000).map(\.rrMs) == [1010])
        #expect(try store.integrityFindings(full: true).isEmpty)
    }
}
