import BraceletDecoder
import Foundation
import Testing
@testable import BraceletStore

/// A checkpointed database with slots of SN1 and one daily summary (with its outbox entry), so the
/// slots, the summaries and the outbox sit on pages of their own in the main file.
private func database(_ folder: TemporaryFolder) throws -> String {
    let path = folder.path("p.db")
    let store = try Store(path: path, now: fixedClock)
    var slot = sampleSlot(start: 1_774_742_400, bpm: 61)
    slot.skinTempC = 33.25
    _ = try store.insertSlots([slot, sampleSlot(start: 1_774_742_460, bpm: 62)], device: "SN1", model: .v1)
    _ = try store.upsertDailySummary(device: "SN1", localDate: "2026-03-29", kind: "bpm", json: Data(#"{"average":61}"#.utf8))
    try store.locked { try $0.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
    return path
}

/// The offset of the last occurrence of `needle` in the file (the outbox copy of a summary follows
/// the summary itself).
private func lastOffset(of needle: [UInt8], in path: String) throws -> UInt64 {
    let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    let index = try #require((0...(bytes.count - needle.count)).last { bytes[$0..<($0 + needle.count)].elementsEqual(needle) })
    return UInt64(index)
}

/// The 8 bytes of 33.25 as SQLite stores a REAL (big-endian), found in the slot row.
private let skinTemperature = Array(withUnsafeBytes(of: (33.25).bitPattern.bigEndian, Array.init))

@Suite struct PageChecksumTests {
    @Test func aNewDatabaseCarriesAChecksumInEveryPage() throws {
        let folder = try TemporaryFolder()
        let path = try database(folder)
        let header = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)).prefix(100))
        #expect(header[20] == 8)  // reserved bytes per page
        let store = try Store(path: path, readOnly: true)
        #expect(try store.schemaVersion() == Store.currentSchemaVersion)
        #expect(Store.currentSchemaVersion >= Migrations.pageChecksumVersion)
        #expect(try store.pageFindings().isEmpty)
        #expect(try store.integrityFindings(full: true).isEmpty)
    }

    @Test func aByteChangedOnDiskFailsTheReadOfItsPageAndNamesIt() throws {
        let folder = try TemporaryFolder()
        let path = try database(folder)
        let at = try lastOffset(of: skinTemperature, in: path)
        try overwrite(path, at: at + 7, with: [0x01], resealing: false)
        let page = at / 4096 + 1
        let store = try Store(path: path, readOnly: true)
        do {
            _ = try store.slots(device: "SN1", from: 0, to: Int64.max / 2)
            Issue.record("a damaged slot page was read without an error")
        } catch let error as StoreError {
            #expect(error.description.contains("page \(page) does not match its checksum"), "\(error)")
            #expect(error.description.contains("bracelet db check --db \(path)"), "\(error)")
        }
        #expect(try store.pageFindings() == [IntegrityFinding(area: "pages", problem: "1 of \(try fileSize(path) / 4096) pages do not match their checksum (changed on disk since bracelet wrote them): page \(page) (slots)")])
        #expect(try store.structureFindings(full: false).map(\.area) == ["pages"])
        // The summaries sit on other pages: still readable.
        #expect(try store.dailySummary(device: "SN1", localDate: "2026-03-29", kind: "bpm") != nil)
    }

    @Test func damageInRowsTheWriterDoesNotReadStillStopsIt() throws {
        let folder = try TemporaryFolder()
        let path = try database(folder)
        // The outbox payload's copy of the summary: no ingest reads it, quick_check does.
        let at = try lastOffset(of: Array(#""average":61"#.utf8), in: path)
        try overwrite(path, at: at + 10, with: Array("7".utf8), resealing: false)
        let store = try Store(path: path)
        #expect(try store.slots(device: "SN1", from: 0, to: Int64.max / 2).map(\.bpm) == [61, 62])
        #expect(throws: StoreError.self) { try store.requireIntactForDelivery() }
        #expect(throws: StoreError.self) { try store.requireIntactForDelivery() }
        #expect(try store.integrityFindings(full: false).map(\.area) == ["pages"])
    }

    @Test func damageInAnOverflowPageOfABeatChunkStopsAWriter() throws {
        let folder = try TemporaryFolder()
        let path = try databaseWithAFullBeatHour(folder)
        let hour = fullBeatHour
        let at = try lastOffset(of: beat800, in: path)
        try overwrite(path, at: at + 4, with: [0x85], resealing: false)
        let store = try Store(path: path)
        let findings = try store.structureFindings(full: false)
        #expect(findings.first == IntegrityFinding(area: "pages", problem: "page \(at / 4096 + 1) does not match its checksum: it changed on disk after bracelet wrote it"), "\(findings)")
        #expect(throws: StoreError.self) { try store.requireIntactForDelivery() }
        #expect(throws: StoreError.self) { try store.beats(device: "SN1", fromMs: hour, toMs: hour + 3_600_000) }
    }

    /// A page in use that lost its content (all zeros, its checksum included) is damage in `db
    /// check`, naming its table, and nothing is sealed over it. A page of zeros passed as a free
    /// page: the overflow page of a beat chunk read as beats of zeros, SQLite's structure check
    /// found nothing, and the next seal would have given it a valid checksum.
    @Test func aPageOfZerosInUseIsDamageNotAFreePage() throws {
        let folder = try TemporaryFolder()
        let path = try databaseWithAFullBeatHour(folder)
        let at = try lastOffset(of: beat800, in: path) / 4096 * 4096
        try overwrite(path, at: at, with: [UInt8](repeating: 0, count: 4096), resealing: false)
        let store = try Store(path: path)
        #expect(try store.structureFindings(full: true).isEmpty, "SQLite's own check finds it now: the test no longer shows the gap")
        let findings = try store.integrityFindings(full: false)
        let page = at / 4096 + 1
        #expect(findings.contains { $0.area == "pages" && $0.problem.contains("hold only zeros") && $0.problem.contains("page \(page) (beat_chunks)") },
                "\(findings)")
        #expect(try store.sealOutsideWrites() == nil)
    }

    @Test func anOlderDatabaseGainsChecksumsAndKeepsEveryRow() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("v7.db")
        do {
            let old = try olderDatabase(path)
            try old.execute("INSERT INTO slots (device_id, start, interval_s, bpm, skin_temp_c) VALUES (1, 60, 60, 58, 33.5)")
            #expect(!PageChecksums.present(old))
        }
        // Opening it for reading upgrades it (the migrations keep every row).
        let store = try Store(path: path, readOnly: true)
        #expect(try store.schemaVersion() == Store.currentSchemaVersion)
        #expect(try store.slots(device: "SN1", from: 0, to: 100).map(\.bpm) == [58])
        #expect(try store.integrityFindings(full: true).isEmpty)
        let header = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)).prefix(100))
        #expect(header[20] == 8)
    }

    @Test func aDamagedOlderDatabaseIsRefusedAsCorruptBeforeItsConversionAndLeftAsItWas() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("old.db")
        do {
            let old = try olderDatabase(path)
            try old.execute("""
                INSERT INTO daily_summaries (device_id, local_date, kind, version, json, content_hash, updated_at)
                VALUES (1, '2026-03-29', 'daily', 1, printf('%.36000c', 'x'), 'h', 0), (1, '2026-03-30', 'daily', 1, '{}', 'h', 0)
                """)
            try old.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        // The long summary's overflow-page pointer (the 4 bytes after the part of the row kept on its
        // leaf page) now names a page far past the end of the file, as in a damaged file from the field.
        var file = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let pointer = try #require(firstOverflowPointerOffset(in: file))
        file.replaceSubrange(pointer..<(pointer + 4), with: [0x64, 0xC1, 0xD9, 0x7D])
        try Data(file).write(to: URL(fileURLWithPath: path))

        // Opening it (for reading, as summarize does) would upgrade it. The upgrade's VACUUM reports
        // such a file as a full disk; it is refused as corrupt, with what SQLite's check found, and
        // left as it was.
        let error = #expect(throws: StoreError.self) { try Store(path: path, readOnly: true) }
        guard case .corrupt(_, let detail)? = error else {
            Issue.record("expected corrupt, got \(String(describing: error))")
            return
        }
        #expect(detail.contains("invalid page number 1690425725"))
        #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) == file)
    }

    @Test func aConnectionThatSawTheFileBeforeItsConversionSealsWhatItCheckpoints() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("v9.db")
        do {
            let old = try olderDatabase(path)
            try old.execute("INSERT INTO slots (device_id, start, interval_s, bpm) VALUES (1, 60, 60, 58)")
        }
        // B reads the file before the conversion (no reserved bytes) and keeps a snapshot open while
        // A converts it, so the conversion stays in the WAL.
        let b = try Database(path: path)
        try b.execute("BEGIN")
        #expect(try b.scalarInt("SELECT count(*) FROM slots") == 1)
        let a = try Database(path: path)
        PageChecksums.requestReservedBytes(a, PageChecksums.reserve)
        try a.execute("VACUUM")
        try b.execute("COMMIT")
        // B's next reads take page 1 from the WAL; A then copies the conversion into the file
        // without restarting the WAL, so B's cached page 1 stays valid.
        #expect(try b.scalarInt("SELECT count(*) FROM slots") == 1)
        _ = try a.scalarInt("PRAGMA wal_checkpoint(PASSIVE)")
        // B writes a row (not page 1) and checkpoints it into the file: it must carry its checksum.
        try b.execute("INSERT INTO slots (device_id, start, interval_s, bpm) VALUES (1, 120, 60, 59)")
        _ = try b.scalarInt("PRAGMA wal_checkpoint(PASSIVE)")
        let scan = try #require(try PageChecksums.scan(path: path))
        #expect(scan.count == 0, "pages without their checksum: \(scan.pages)")
        #expect(scan.total > 1)
    }

    @Test func aFileOfTheChecksumSchemaWithoutChecksumsIsRefused() throws {
        let folder = try TemporaryFolder()
        let path = try database(folder)
        try overwrite(path, at: 20, with: [0], resealing: false)  // the header's reserved bytes
        #expect(throws: StoreError.self) { try Store(path: path, readOnly: true) }
        #expect(throws: StoreError.self) { try Store(path: path) }
    }

    @Test func committedTransactionsInTheWALSurviveACrashAndGetTheirChecksumsAtTheCheckpoint() throws {
        let folder = try TemporaryFolder()
        let path = try database(folder)  // checkpointed: the WAL is empty
        let image = folder.path("crash.db")
        do {
            let store = try Store(path: path, now: fixedClock)
            // Three transactions that stay in the WAL (far below the automatic checkpoint).
            for hour in 0..<3 {
                let start = 1_774_800_000 + Int64(hour) * 3_600
                _ = try store.insertSlots((0..<30).map { sampleSlot(start: start + Int64($0) * 60, bpm: 70 + hour) }, device: "SN2", model: .v1)
            }
            #expect(try fileSize(path + "-wal") > 0)
            // A crash image, taken while the store is open: the file and its WAL as they are, no
            // checkpoint, no shared-memory index (SQLite rebuilds it from the WAL, checking every
            // frame's checksum, and drops everything from the first frame that fails).
            try FileManager.default.copyItem(atPath: path, toPath: image)
            try FileManager.default.copyItem(atPath: path + "-wal", toPath: image + "-wal")
        }
        do {
            let recovered = try Store(path: image, readOnly: true)
            let slots = try recovered.slots(device: "SN2", from: 0, to: Int64.max / 2)
            #expect(slots.count == 90, "every committed transaction is there after recovery")
            #expect(Set(slots.map(\.bpm)) == [70, 71, 72])
            #expect(try recovered.integrityFindings(full: true).isEmpty)
        }
        // Checkpointed into the file, each of those pages carries its checksum.
        do {
            let store = try Store(path: image)
            try store.locked { try $0.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
            #expect(try fileSize(image + "-wal") == 0)
            #expect(try store.pageFindings().isEmpty)
            #expect(try store.slots(device: "SN2", from: 0, to: Int64.max / 2).count == 90)
        }
        let scan = try #require(try PageChecksums.scan(path: image))
        let pages = Int64(try fileSize(image) / 4096)
        #expect(scan.count == 0 && scan.total == pages)
    }

    @Test func vacuumIntoWritesACopyWhosePagesCarryChecksums() throws {
        let folder = try TemporaryFolder()
        let path = try database(folder)
        let copy = folder.path("vacuumed.db")
        try Store(path: path).locked { db in
            let statement = try db.prepare("VACUUM INTO ?1")
            statement.bind(copy, at: 1)
            _ = try statement.step()
        }
        let header = [UInt8](try Data(contentsOf: URL(fileURLWithPath: copy)).prefix(100))
        #expect(header[20] == 8)
        let scan = try #require(try PageChecksums.scan(path: copy))
        #expect(scan.count == 0 && scan.total > 1)
        #expect(try Store(path: copy, readOnly: true).slots(device: "SN1", from: 0, to: Int64.max / 2).map(\.bpm) == [61, 62])
        // And the copy's pages are verified like any other file's.
        let at = try lastOffset(of: skinTemperature, in: copy)
        try overwrite(copy, at: at + 7, with: [0x01], resealing: false)
        #expect(throws: StoreError.self) { try Store(path: copy, readOnly: true).slots(device: "SN1", from: 0, to: Int64.max / 2) }
    }

    @Test func aBackupCopiesEveryPageWithItsChecksumAndRefusesADamagedSource() throws {
        let folder = try TemporaryFolder()
        let path = try database(folder)
        let store = try Store(path: path)
        let copy = folder.path("copy.db")
        try store.backup(to: copy)
        let restored = try Store(path: copy, readOnly: true)
        #expect(try restored.slots(device: "SN1", from: 0, to: Int64.max / 2).map(\.bpm) == [61, 62])
        #expect(try restored.integrityFindings(full: true).isEmpty)

        let at = try lastOffset(of: skinTemperature, in: path)
        try overwrite(path, at: at + 7, with: [0x01], resealing: false)
        let damaged = try Store(path: path, readOnly: true)
        let second = folder.path("second.db")
        #expect(throws: StoreError.self) { try damaged.backup(to: second) }
        #expect(!FileManager.default.fileExists(atPath: second), "a failed backup leaves no file behind")
    }
}

/// The offset of the overflow-page pointer of the first row that overflows its table leaf page
/// (SQLite's file format: a leaf keeps the first `local` bytes of a payload of `p` bytes, then the
/// 4-byte number of the first overflow page). Pages of 4,096 bytes without reserved bytes.
private func firstOverflowPointerOffset(in file: [UInt8]) -> Int? {
    let size = 4096
    func varint(_ at: Int) -> (value: Int, end: Int) {
        var value = 0
        for k in 0..<8 {
            value = value << 7 | Int(file[at + k] & 0x7F)
            if file[at + k] < 0x80 { return (value, at + k + 1) }
        }
        return (value << 8 | Int(file[at + 8]), at + 9)
    }
    for page in stride(from: size, to: file.count, by: size) where file[page] == 0x0D {
        let cells = Int(file[page + 3]) << 8 | Int(file[page + 4])
        for cell in 0..<cells {
            let at = page + (Int(file[page + 8 + 2 * cell]) << 8 | Int(file[page + 9 + 2 * cell]))
            let payload = varint(at), rowid = varint(payload.end)
            let most = size - 35, least = (size - 12) * 32 / 255 - 23
            guard payload.value > most else { continue }
            let kept = least + (payload.value - least) % (size - 4)
            return rowid.end + (kept <= most ? kept : least)
        }
    }
    return nil
}

/// A file as the builds before the checksums wrote it (schema one below the checksums, no reserved
/// bytes), holding device SN1 as id 1.
private func olderDatabase(_ path: String) throws -> Database {
    let old = try Database(path: path)
    for migration in Migrations.all.prefix(Migrations.pageChecksumVersion - 1) { try old.execute(migration) }
    try old.execute("PRAGMA user_version = \(Migrations.pageChecksumVersion - 1)")
    try old.execute("INSERT INTO devices (id, serial, first_seen_at, last_seen_at) VALUES (1, 'SN1', 0, 0)")
    return old
}

private func fileSize(_ path: String) throws -> Int {
    try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
}
