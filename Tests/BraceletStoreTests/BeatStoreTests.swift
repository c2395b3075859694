import BraceletDecoder
import Foundation
import Testing
@testable import BraceletStore

/// Beats are stored packed per device and hour; these pin that every reader still sees the beats
/// as rows would hold them.
@Suite struct BeatStoreTests {
    /// 2026-03-29 00:00:00 UTC in milliseconds (a whole hour).
    let hour: Int64 = 1_774_742_400_000

    @Test func beatsOutOfOrderAcrossHoursComeBackInTimeOrderFirstDeliveryWinning() throws {
        let folder = try TemporaryFolder()
        let store = try Store(path: folder.path("b.db"))
        let input = [Beat(timeMs: hour + 3_600_400, rrMs: 810), Beat(timeMs: hour + 3_599_999, rrMs: nil),
                     Beat(timeMs: hour, rrMs: -3), Beat(timeMs: hour + 3_600_400, rrMs: 999), Beat(timeMs: hour - 1, rrMs: 70_000)]
        let report = try store.insertBeats(input, device: "SN1", model: .v2)
        #expect(report.inserted == 4)
        #expect(report.alreadyPresent == 1, "the second beat at the same time is a repeat")
        #expect(report.insertedInstants == [hour / 1000 - 1, hour / 1000, hour / 1000 + 3_599, hour / 1000 + 3_600])
        let back = try store.beats(device: "SN1", fromMs: 0, toMs: .max)
        #expect(back == [Beat(timeMs: hour - 1, rrMs: 70_000), Beat(timeMs: hour, rrMs: -3),
                         Beat(timeMs: hour + 3_599_999, rrMs: nil), Beat(timeMs: hour + 3_600_400, rrMs: 810)])
        // Half-open ranges that start and end inside an hour.
        #expect(try store.beats(device: "SN1", fromMs: hour, toMs: hour + 3_600_400).map(\.timeMs) == [hour, hour + 3_599_999])
        #expect(try store.beats(device: "SN1", fromMs: hour + 1, toMs: hour + 3_600_401).map(\.timeMs) == [hour + 3_599_999, hour + 3_600_400])
        #expect(try store.beats(device: "SN2", fromMs: 0, toMs: .max).isEmpty)
    }

    @Test func newBeatsMergeIntoAStoredHourAndRepeatsWriteNothing() throws {
        let folder = try TemporaryFolder()
        let store = try Store(path: folder.path("b.db"))
        _ = try store.insertBeats([Beat(timeMs: hour + 1_000, rrMs: 900), Beat(timeMs: hour + 3_000, rrMs: 1_000)], device: "SN1", model: .v2)
        let again = try store.insertBeats([Beat(timeMs: hour + 3_000, rrMs: 1), Beat(timeMs: hour + 2_000, rrMs: 950),
                                           Beat(timeMs: hour + 4_000, rrMs: nil)], device: "SN1", model: .v2)
        #expect((again.inserted, again.alreadyPresent) == (2, 1))
        #expect(try store.beats(device: "SN1", fromMs: hour, toMs: hour + 5_000)
                == [Beat(timeMs: hour + 1_000, rrMs: 900), Beat(timeMs: hour + 2_000, rrMs: 950),
                    Beat(timeMs: hour + 3_000, rrMs: 1_000), Beat(timeMs: hour + 4_000, rrMs: nil)])
        let repeated = try store.insertBeats([Beat(timeMs: hour + 2_000, rrMs: 950)], device: "SN1", model: .v2)
        #expect((repeated.inserted, repeated.alreadyPresent, repeated.insertedInstants) == (0, 1, []))
        // Negative times (before 1970) fall in the hour below them.
        _ = try store.insertBeats([Beat(timeMs: -1, rrMs: 5), Beat(timeMs: -3_600_000, rrMs: 6)], device: "SN1", model: nil)
        #expect(try store.beats(device: "SN1", fromMs: -3_600_000, toMs: 0).map(\.rrMs) == [6, 5])
    }

    @Test func anIntervalBeyondThirtyTwoBitsIsRefusedAndNothingIsStored() throws {
        let folder = try TemporaryFolder()
        let store = try Store(path: folder.path("b.db"))
        #expect(throws: StoreError.self) {
            try store.insertBeats([Beat(timeMs: hour, rrMs: 800), Beat(timeMs: hour + 900, rrMs: Int(Int32.max) + 1)], device: "SN1", model: nil)
        }
        #expect(try store.beats(device: "SN1", fromMs: 0, toMs: .max).isEmpty)
    }

    @Test func theViewShowsTheChunksAsTheOldRows() throws {
        let folder = try TemporaryFolder()
        let store = try Store(path: folder.path("b.db"))
        let beats = [Beat(timeMs: hour - 7, rrMs: nil), Beat(timeMs: hour + 5, rrMs: -2), Beat(timeMs: hour + 7_200_000, rrMs: 65_535)]
        _ = try store.insertBeats(beats, device: "SN1", model: .v1)
        let rows = try store.locked { db in
            let statement = try db.prepare("SELECT device_id, time_ms, rr_ms FROM beats ORDER BY time_ms")
            var rows: [Beat] = []
            while try statement.step() {
                #expect(statement.int64(at: 0) == 1)
                rows.append(Beat(timeMs: statement.int64(at: 1) ?? 0, rrMs: statement.int(at: 2)))
            }
            return rows
        }
        #expect(rows == beats)
    }

    @Test func theMigrationPacksStoredBeatRowsWithoutLosingOne() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("old.db")
        var rows: [Beat] = []
        for i in 0..<5_000 { rows.append(Beat(timeMs: hour - 1_800_000 + Int64(i) * 997, rrMs: i % 97 == 0 ? nil : 600 + i % 400)) }
        do {
            let old = try Store(path: path, migratingTo: 6)
            try old.transaction { try old.locked { db in
                try db.execute("INSERT INTO devices (id, serial, first_seen_at, last_seen_at) VALUES (1, 'SN1', 0, 0), (2, 'SN2', 0, 0)")
                let insert = try db.prepare("INSERT INTO beats (device_id, time_ms, rr_ms) VALUES (?1, ?2, ?3)")
                for (n, beat) in rows.reversed().enumerated() {
                    insert.bind(Int64(n % 3 == 0 ? 2 : 1), at: 1)
                    insert.bind(beat.timeMs, at: 2)
                    insert.bind(beat.rrMs, at: 3)
                    try insert.run()
                }
            } }
        }
        let store = try Store(path: path)
        #expect(try store.schemaVersion() == Store.currentSchemaVersion)
        let both = try store.beats(device: "SN1", fromMs: .min / 2, toMs: .max / 2) + store.beats(device: "SN2", fromMs: .min / 2, toMs: .max / 2)
        #expect(both.sorted { $0.timeMs < $1.timeMs } == rows)
        #expect(try store.integrityFindings(full: true).isEmpty)
    }

    @Test func aChangedByteInsideAChunkIsFoundBySpanAndWholeChecks() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("b.db")
        do {
            let store = try Store(path: path)
            _ = try store.insertBeats([Beat(timeMs: hour + 0x0A0B0C, rrMs: 0x5A5A)], device: "SN1", model: .v1)
            try store.locked { try $0.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
        }
        // The record is stored little-endian: offset 0C 0B 0A, interval 5A 5A 00.
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let needle: [UInt8] = [0x0C, 0x0B, 0x0A, 0x5A, 0x5A, 0x00]
        let at = try #require((0...(bytes.count - needle.count)).first { bytes[$0..<($0 + needle.count)].elementsEqual(needle) })
        try overwrite(path, at: UInt64(at + 4), with: [0x5B], resealing: true)  // past the page checksum
        let store = try Store(path: path, readOnly: true)
        #expect(try store.measurementFindings().map(\.area) == ["beats"])
        // A span that starts inside the hour still checks the hour's chunk.
        #expect(throws: StoreError.self) { try store.requireIntactMeasurements(device: "SN1", seconds: hour / 1000 + 60..<hour / 1000 + 7_200) }
        try store.requireIntactMeasurements(device: "SN1", seconds: hour / 1000 + 3_600..<hour / 1000 + 7_200)
    }
}
