import BraceletDecoder
import Foundation
import Testing
@testable import BraceletStore

/// The migration to 6-byte beat records converts a schema-12 file in place: every beat as it was,
/// through the store and through the plain-SQL `beats` view, every row check valid, and a chunk
/// that no longer matched its row check left as it was for `db check` to report.
@Suite struct BeatNarrowingMigrationTests {
    /// Beats of SN1 over two hours: gaps (no interval), negative and large intervals, hour edges.
    static let beats: [(timeMs: Int64, rrMs: Int64?)] = {
        let hour: Int64 = 1_774_742_400_000
        var beats: [(Int64, Int64?)] = [(hour, nil), (hour + 1, -5), (hour + 3_599_999, 8_388_607), (hour + 3_600_000, nil)]
        for i in 1...2_500 { beats.append((hour + 3_600_000 + Int64(i) * 900, Int64(600 + i % 400))) }
        beats.append((hour + 7_199_999, -8_388_607))
        return beats
    }()

    /// A schema-12 file holding ``beats`` as schema 12 wrote them (8-byte records), plus a second
    /// device whose chunk is damaged inside its row (its row check no longer matches).
    static func schema12Database(at path: String) throws {
        do {
        let old = try Store(path: path, migratingTo: 12)
        try old.locked { db in
            try db.execute("INSERT INTO devices (serial, first_seen_at, last_seen_at) VALUES ('SN1', 0, 0), ('SN2', 0, 0)")
            let values = beats.map { "(\($0.timeMs), \($0.rrMs.map(String.init) ?? "NULL"))" }.joined(separator: ", ")
            try db.execute("""
                INSERT INTO beat_chunks (device_id, start_ms, beats)
                SELECT 1, t - t % 3600000, bracelet_beat_chunk(t, rr) FROM (SELECT column1 AS t, column2 AS rr FROM (VALUES \(values)))
                GROUP BY t - t % 3600000
                """)
            try db.execute("""
                INSERT INTO beat_chunks (device_id, start_ms, beats)
                SELECT 2, 0, bracelet_beat_chunk(column1, column2) FROM (VALUES (1000, 700), (2000, 710))
                """)
            try db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        }
        // Damage the second device's chunk inside its row (its interval 700, BC 02 00 00, becomes
        // 701) as if through SQLite: the page keeps a valid checksum, the row check is the old one.
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let needle: [UInt8] = [0xE8, 0x03, 0x00, 0x00, 0xBC, 0x02, 0x00, 0x00]
        let at = try #require((0...(bytes.count - needle.count)).first { bytes[$0..<($0 + needle.count)].elementsEqual(needle) })
        try overwrite(path, at: UInt64(at + 4), with: [0xBD], resealing: true)
    }

    @Test func aSchema12FileKeepsEveryBeatInSixBytesEach() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("old.db")
        try Self.schema12Database(at: path)
        let store = try Store(path: path)
        #expect(try store.schemaVersion() == Migrations.latestVersion)
        let expected = Self.beats.map { Beat(timeMs: $0.timeMs, rrMs: $0.rrMs.map { Int($0) }) }
        #expect(try store.beats(device: "SN1", fromMs: 0, toMs: Int64.max / 2) == expected)
        let viewed = try store.locked { db in
            let statement = try db.prepare("SELECT time_ms, rr_ms FROM beats WHERE device_id = 1 ORDER BY time_ms")
            var rows: [Beat] = []
            while try statement.step() { rows.append(Beat(timeMs: statement.int64(at: 0) ?? -1, rrMs: statement.int(at: 1))) }
            return rows
        }
        #expect(viewed == expected)
        let sizes = try store.locked { db in try db.scalarInt("SELECT sum(length(beats)) FROM beat_chunks WHERE device_id = 1") }
        #expect(sizes == Int64(Self.beats.count * 6))
        // The pages the narrower chunks freed are given back to the file system.
        #expect(try store.locked { db in try db.scalarInt("PRAGMA freelist_count") } == 0)
        // SN1's rows are intact; SN2's damaged chunk is still reported as damaged.
        #expect(try store.measurementFindings(device: "SN1").isEmpty)
        #expect(try store.measurementFindings(device: "SN2").map(\.area) == ["beats"])
    }

    @Test func anIntervalBeyond24BitsIsRefusedNeverCut() throws {
        let folder = try TemporaryFolder()
        let store = try Store(path: folder.path("d.db"))
        #expect(throws: StoreError.self) {
            try store.insertBeats([Beat(timeMs: 1_774_742_400_000, rrMs: 8_388_608)], device: "SN1", model: .v1)
        }
        _ = try store.insertBeats([Beat(timeMs: 1_774_742_400_000, rrMs: -8_388_607)], device: "SN1", model: .v1)
        #expect(try store.beats(device: "SN1", fromMs: 0, toMs: Int64.max / 2).map(\.rrMs) == [-8_388_607])
    }
}
