import Foundation
import Testing
import BraceletDecoder
import BraceletIngest
import BraceletProtocol
import BraceletStore
import BraceletSummaries
import BraceletTransport
import Synchronization

private func withDatabase<T>(_ body: (Store) throws -> T) throws -> T {
    let path = Bundled.temporaryDatabase()
    defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
    return try body(try Store(path: path))
}

private func withDatabase<T>(_ body: (Store) async throws -> T) async throws -> T {
    let path = Bundled.temporaryDatabase()
    defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
    return try await body(try Store(path: path))
}

@Test func aCaptureIngestedTwiceStoresItsSummariesOnceAndQueuesThemOnce() throws {
    try withDatabase { store in
        let replayed = try Bundled.replay("v2-three-days.btsnoop")
        let zone = try SummaryConfiguration.timeZone(named: "America/New_York")
        let pipeline = IngestPipeline(store: store, configuration: try SummaryConfiguration(age: 35, timeZone: zone), age: 35)
        let first = try pipeline.ingest(VerifiedFile.files(of: replayed))
        #expect(first.slotsInserted == replayed.metricsFiles.reduce(0) { $0 + $1.slots.count })
        #expect(first.beatsInserted == replayed.beatsFiles.reduce(0) { $0 + $1.beats.count })
        let recomputed = try #require(first.recomputed.first)
        #expect(recomputed.device == "V23DAY01")
        #expect(recomputed.report.dates.contains("2026-06-17"))
        #expect(try store.outboxCounts().pending == first.outboxEntries)
        #expect(first.outboxEntries == recomputed.report.dates.count + recomputed.report.changedSleepSessions)

        let second = try pipeline.ingest(VerifiedFile.files(of: replayed))
        #expect(second.slotsInserted == 0 && second.beatsInserted == 0)
        #expect(second.slotsPresent == first.slotsInserted)
        #expect(second.recomputed.isEmpty)
        #expect(try store.outboxCounts().pending == first.outboxEntries)
    }
}

@Test func aTransferredFileIsStoredWithItsProgressAndItsDaysPendingUntilTheSyncEnds() async throws {
    try await withDatabase { store in
        let replayed = try Bundled.replay("v1-day.btsnoop")
        let metrics = try #require(replayed.metricsFiles.first)
        let header = metrics.header
        let bytes = try MetricsRecordEncoder(model: header.model).sealedFile(
            serial: header.serial, timeZoneOffsetMinutes: header.timeZoneOffsetMinutes, intervalSeconds: header.intervalSeconds,
            firstStart: header.baseTime, slots: metrics.slots)
        let file = TransferredFile(kind: .metrics, bytes: bytes, serial: header.serial, model: header.model, receivedAt: 0)
        let zone = try SummaryConfiguration.timeZone(named: "Europe/Amsterdam")
        let pipeline = IngestPipeline(store: store, configuration: try SummaryConfiguration(timeZone: zone), age: nil)

        // The session's sink: when commit returns, data, progress and the touched days are durable;
        // the days are summarised and queued when the session says the sync ended.
        try pipeline.commit(file)
        let progress = try #require(try store.transferProgress(device: header.serial, fileKind: "metrics"))
        #expect(progress.state == .committed && progress.committed == Int64(bytes.count))
        #expect(try store.slots(device: header.serial, from: 0, to: Int64.max / 2) == metrics.slots)
        #expect(try store.outboxCounts().pending == 0)
        let pending = try #require(try store.pendingRecompute().first)
        #expect(pending.device == header.serial && !pending.dates.isEmpty)
        try pipeline.syncEnded()
        #expect(try store.pendingRecompute().isEmpty)
        let queued = try store.outboxCounts().pending
        #expect(queued > 0)
        #expect(Set(try store.summaryDates(device: header.serial)).isSubset(of: pending.dates))

        // The same file again (link lost between commit and erase): skipped, nothing queued.
        let again = try await pipeline.ingest([try #require(try VerifiedFile(transferred: file))])
        #expect(again.repeatedFiles == 1 && again.slotsInserted == 0)
        #expect(try store.outboxCounts().pending == queued)

        try pipeline.recordErased(serial: header.serial, fileKind: "metrics")
        #expect(try store.transferProgress(device: header.serial, fileKind: "metrics")?.state == .erased)
    }
}

@Test func aDamagedTransferredFileIsRefusedAndNothingIsStored() throws {
    try withDatabase { store in
        let replayed = try Bundled.replay("v1-day.btsnoop")
        let metrics = try #require(replayed.metricsFiles.first)
        let header = metrics.header
        var bytes = try MetricsRecordEncoder(model: header.model).sealedFile(
            serial: header.serial, timeZoneOffsetMinutes: 0, intervalSeconds: header.intervalSeconds,
            firstStart: header.baseTime, slots: Array(metrics.slots.prefix(100)))
        bytes[bytes.count / 2] ^= 0xFF  // the CRC-32 no longer matches
        let file = TransferredFile(kind: .metrics, bytes: bytes, serial: header.serial, model: header.model, receivedAt: 0)
        let pipeline = IngestPipeline(store: store, configuration: try SummaryConfiguration(timeZone: .gmt), age: nil)
        #expect(throws: IngestError.self) { try pipeline.commit(file) }
        #expect(try store.devices().isEmpty)
        #expect(try store.outboxCounts().pending == 0)
    }
}

@Test func aTransferredFileIsDecodedInBoundedBatchesThatAddUpToTheWholeFile() throws {
    let replayed = try Bundled.replay("v1-day.btsnoop")
    let metrics = try #require(replayed.metricsFiles.first)
    let header = metrics.header
    let bytes = try MetricsRecordEncoder(model: header.model).sealedFile(
        serial: header.serial, timeZoneOffsetMinutes: header.timeZoneOffsetMinutes, intervalSeconds: header.intervalSeconds,
        firstStart: header.baseTime, slots: metrics.slots)
    let verified = try #require(try VerifiedFile(transferred: TransferredFile(kind: .metrics, bytes: bytes, serial: header.serial,
                                                                               model: header.model, receivedAt: 0)))
    // Checked, not decoded: the rows come only batch by batch.
    #expect(verified.slots.isEmpty && verified.transfer?.sealedSize == Int64(bytes.count))
    var batches: [[Slot]] = []
    try verified.forEachBatch(slots: 1_100) { slots, beats in
        #expect(beats.isEmpty)
        batches.append(slots)
    }
    #expect(batches.count >= 2)
    #expect(batches.allSatisfy { $0.count <= 1_100 })
    #expect(Array(batches.joined()) == metrics.slots)

    let beatsFile = try #require(replayed.beatsFiles.first)
    let beatBytes = BeatsCodec.sealedFile(model: header.model, serial: header.serial, timeZoneOffsetMinutes: 0,
                                          baseTime: beatsFile.header.baseTime, beats: beatsFile.beats)
    let beats = try #require(try VerifiedFile(transferred: TransferredFile(kind: .beats, bytes: beatBytes, serial: header.serial,
                                                                            model: header.model, receivedAt: 0)))
    var beatBatches: [[Beat]] = []
    try beats.forEachBatch(beats: 5_000) { _, beats in beatBatches.append(beats) }
    #expect(beatBatches.count == (beatsFile.beats.count + 4_095) / 4_096)  // whole decoder batches of 2 048 up to 5 000
    #expect(Array(beatBatches.joined()) == beatsFile.beats)
}

/// A recompute reports its progress day by day, not only once a transaction's days are all done:
/// the days of a capture stored without their summaries count up one at a time to the total.
@Test func aRecomputeReportsEachDayAsItIsStored() throws {
    try withDatabase { store in
        let replayed = try Bundled.replay("v2-three-days.btsnoop")
        let zone = try SummaryConfiguration.timeZone(named: "America/New_York")
        let given = IngestPipeline(store: store, configuration: try SummaryConfiguration(age: 35, timeZone: zone), age: 35).given
        _ = try IngestPipeline(store: store, given: given).storeDeferringSummaries(VerifiedFile.files(of: replayed))
        let pending = try store.pendingRecompute().reduce(0) { $0 + $1.dates.count }
        #expect(pending >= 3 && pending < 56)  // one transaction (56 days): every update before the last is a day's
        let seen = Mutex<[Int]>([])
        let report = try IngestPipeline(store: store, given: given, onProgress: { progress in
            if case let .recomputing(done, total) = progress, total == pending { seen.withLock { $0.append(done) } }
        }).recomputePending()
        #expect(seen.withLock { $0 } == Array(0...pending))
        // A pending date may hold nothing to store (the capture's last, partial day); it still counts as done.
        #expect((1...pending).contains(report.recomputed.first?.report.dates.count ?? 0))
    }
}
