import BraceletDecoder
import Foundation
import Testing
@testable import BraceletStore

/// Runs Debian's sqlite3 shell (package sqlite3) on `path`: another SQLite program, without the
/// checksum VFS, as a person reading the file would. Returns its status, output and errors.
@discardableResult
private func stockSQLite(_ path: String, _ sql: String) throws -> (status: Int32, out: String, err: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
    process.arguments = [path, sql]
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let printed = out.fileHandleForReading.readDataToEndOfFile()
    let errors = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: printed, as: UTF8.self), String(decoding: errors, as: UTF8.self))
}

private func size(_ path: String) -> Int {
    (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? -1
}

/// A store with 60 slots of SN1 in the file and 90 of SN2 committed in three transactions that stay
/// in the WAL, copied while the store is open: what a bracelet process killed mid-run leaves.
private func crashImage(_ folder: TemporaryFolder) throws -> String {
    let path = folder.path("live.db"), image = folder.path("image.db")
    let store = try Store(path: path, now: fixedClock)
    _ = try store.insertSlots((0..<60).map { sampleSlot(start: 1_774_742_400 + Int64($0) * 60, bpm: 61) }, device: "SN1", model: .v1)
    try store.locked { try $0.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
    for hour in 0..<3 {
        let start = 1_774_800_000 + Int64(hour) * 3_600
        _ = try store.insertSlots((0..<30).map { sampleSlot(start: start + Int64($0) * 60, bpm: 70 + hour) }, device: "SN2", model: .v1)
    }
    try FileManager.default.copyItem(atPath: path, toPath: image)
    try FileManager.default.copyItem(atPath: path + "-wal", toPath: image + "-wal")
    return image
}

@Suite struct OutsideWriteTests {
    @Test func aStockSqlite3ReadOfALeftOverLogIsNoDamageAndTheNextWriterSealsItsPages() throws {
        let folder = try TemporaryFolder()
        let image = try crashImage(folder)
        #expect(size(image + "-wal") > 0)
        // One read; closing last, the shell checkpoints bracelet's log into the file, without checksums.
        #expect(try stockSQLite(image, "SELECT count(*) FROM slots").out == "150\n")
        #expect(!FileManager.default.fileExists(atPath: image + "-wal"))
        let scan = try #require(try PageChecksums.scan(path: image))
        #expect(scan.count == 0, "damaged: \(scan.pages)")
        #expect(scan.unsealed.count > 0 && scan.unsealed.written.isEmpty)

        do {
            let reader = try Store(path: image, readOnly: true)
            #expect(try reader.pageFindings().isEmpty)
            #expect(try reader.integrityFindings(full: false).isEmpty)
            #expect(try reader.slots(device: "SN2", from: 0, to: Int64.max / 2).count == 90)
            let found = try #require(try reader.outsideWrites())
            #expect(found.pages == scan.unsealed.count && !found.written && !found.sealed)
            #expect(found.description.contains("copied into the file by another SQLite program"))
            // A read-only open verifies them and leaves the sealing to a writer.
            let verified = try #require(try reader.requireIntactForDelivery())
            #expect(verified.verified && !verified.sealed)
        }
        let writer = try Store(path: image)
        let report = try #require(try writer.requireIntactForDelivery())
        #expect(report.verified && report.sealed && !report.written)
        let after = try #require(try PageChecksums.scan(path: image))
        #expect(after.count == 0 && after.unsealed.isEmpty)
        #expect(try writer.requireIntactForDelivery() == nil)
        #expect(try writer.slots(device: "SN2", from: 0, to: Int64.max / 2).map(\.bpm).reduce(0) { $0 + ($1 ?? 0) } == 30 * (70 + 71 + 72))
    }

    /// Another connection reading while the unsealed pages are sealed keeps the checkpoint from
    /// copying the rewritten pages into the file: that is not a seal. The report said "sealed" while
    /// the file still held every unsealed page (the checkpoint's busy answer was ignored); now it
    /// says they are not sealed yet, and the writer's closing checkpoint seals them.
    @Test func aSealKeptFromFinishingByAReaderIsNotReportedAsSealed() throws {
        let folder = try TemporaryFolder()
        let image = try crashImage(folder)
        #expect(try stockSQLite(image, "SELECT count(*) FROM slots").out == "150\n")
        let unsealed = try #require(try PageChecksums.scan(path: image)).unsealed.count
        #expect(unsealed > 0)
        do {
            let reader = try Database(path: image, readOnly: true)
            try reader.execute("BEGIN")
            #expect(try reader.scalarInt("SELECT count(*) FROM slots") == 150)
            let writer = try Store(path: image)
            let report = try #require(try writer.requireIntactForDelivery())
            #expect(report.verified && !report.sealed)
            #expect(report.description.contains("the next bracelet command that writes seals them again"))
            #expect(try PageChecksums.scan(path: image)?.unsealed.isEmpty == false, "the file no longer holds unsealed pages")
            try reader.execute("COMMIT")
            withExtendedLifetime(writer) {}
        }
        let after = try #require(try PageChecksums.scan(path: image))
        #expect(after.count == 0 && after.unsealed.isEmpty, "still unsealed: \(after.unsealed.listed)")
    }

    @Test func aWriteFromOutsideWhileBraceletHasTheFileOpenIsNamedAndSealedWhenItsRowsPass() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("b.db")
        let store = try Store(path: path, now: fixedClock)
        _ = try store.insertSlots([sampleSlot(start: 1_774_742_400, bpm: 61)], device: "SN1", model: .v1)
        try store.locked { try $0.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
        #expect(try stockSQLite(path, "UPDATE devices SET model = 'V2' WHERE serial = 'SN1'").status == 0)
        // The store has the file open, so the shell did not checkpoint; bracelet's checkpoint copies its page.
        #expect(size(path + "-wal") > 0)
        try store.locked { try $0.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
        let found = try #require(try store.outsideWrites())
        #expect(found.written)
        #expect(found.listed.contains { $0.hasSuffix("(devices)") }, "\(found.listed)")
        #expect(found.description.contains("another program wrote to the file"))
        #expect(try store.pageFindings().isEmpty)
        #expect(try store.integrityFindings(full: false).isEmpty)

        let report = try #require(try store.requireIntactForDelivery())
        #expect(report.written && report.verified && report.sealed)
        let after = try #require(try PageChecksums.scan(path: path))
        #expect(after.count == 0 && after.unsealed.isEmpty)
        #expect(try store.devices().map(\.model) == [.v2])
    }

    @Test func aWriteFromOutsideThatChangesCheckedRowsIsRefusedAsAWriteFromOutside() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("b.db")
        let store = try Store(path: path, now: fixedClock)
        _ = try store.upsertDailySummary(device: "SN1", localDate: "2026-03-29", kind: "bpm", json: Data(#"{"average":61}"#.utf8))
        try store.locked { try $0.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
        // (Slots and beats cannot be written from outside at all: their row checks are generated
        // columns of a function only bracelet has.)
        let refused = try stockSQLite(path, "UPDATE slots SET bpm = 99")
        #expect(refused.status != 0 && refused.err.contains("bracelet_row_check") && size(path + "-wal") == 0)
        #expect(try stockSQLite(path, "UPDATE documents SET size = size + 1").status == 0)
        try store.locked { try $0.execute("PRAGMA wal_checkpoint(TRUNCATE)") }

        let findings = try store.integrityFindings(full: false)
        #expect(findings.map(\.area) == ["outside"], "\(findings)")
        #expect(findings.first?.problem.contains("another program wrote to the file") == true)
        #expect(findings.first?.problem.contains("documents: 1 summary documents whose content does not match its content hash") == true, "\(findings)")
        let error = #expect(throws: StoreError.self) { try store.requireIntactForDelivery() }
        guard case .writtenOutside(_, let detail)? = error else {
            Issue.record("expected writtenOutside, got \(String(describing: error))")
            return
        }
        #expect(detail.contains("(documents)") && detail.contains("rows no longer match what bracelet wrote"), "\(detail)")
        // Nothing was sealed: the outside write stays visible.
        #expect(try store.outsideWrites()?.written == true)
    }

    @Test func damageBesidePagesCopiedByAnotherProgramIsStillDamageAndNothingIsSealed() throws {
        let folder = try TemporaryFolder()
        let image = try crashImage(folder)
        try stockSQLite(image, "SELECT count(*) FROM slots")
        let scan = try #require(try PageChecksums.scan(path: image))
        let unsealed = Set(scan.unsealed.listed)
        #expect(scan.unsealed.count == Int64(unsealed.count))
        // A byte changed on disk in a page that kept its checksum.
        let page = try #require((2...scan.total).first { !unsealed.contains($0) })
        try overwrite(image, at: UInt64(page - 1) * 4096 + 2048, with: [0xA5], resealing: false)

        let store = try Store(path: image)
        #expect(try store.pageFindings().map(\.area) == ["pages"])
        #expect(try store.pageFindings().first?.problem.contains("page \(page)") == true)
        #expect(try store.sealOutsideWrites() == nil)
        #expect(throws: StoreError.self) { try store.requireIntactForDelivery() }
        #expect(try PageChecksums.scan(path: image)?.unsealed.count == scan.unsealed.count, "nothing was sealed over the damage")
        #expect(try store.integrityFindings(full: false).contains { $0.area == "pages" })
    }
}
