import BraceletIngest
import BraceletStore
import BraceletVitality
import Foundation
import Testing
@testable import BraceletCLI

/// `ingest` streams a capture into the store in bounded pieces and recomputes the pending days at
/// the end: the same rows and summaries as one piece, nothing new the second time, and a run that
/// stops before its recompute leaves its rows with their days pending.
@Suite struct StreamedIngestTests {
    let capture = capturesFolder + "/v1-day.btsnoop"

    /// A streamer into `db` with pieces of at most `slots` slots or `beats` beats.
    private func streamer(_ db: String, slots: Int, beats: Int) throws -> CaptureStreamer {
        CaptureStreamer(store: try openStore(db, mustExist: false), given: ParticipantProfile(timeZone: TimeZone(identifier: "UTC")),
                        database: db, slotsPerPiece: slots, beatsPerPiece: beats)
    }

    private func ingest(_ db: String, slots: Int, beats: Int) throws -> IngestReport {
        var streamer = try streamer(db, slots: slots, beats: beats)
        #expect(try !streamer.storeCaptures([capture]))
        return try streamer.finish()
    }

    /// Every outbox entry of `db` as key and content hash, in key order.
    private func entries(_ db: String) throws -> [String] {
        try openStore(db, mustExist: true).outboxEntries(payloads: false).map { "\($0.key) \($0.contentHash)" }.sorted()
    }

    @Test func smallPiecesStoreWhatOnePieceStoresAndARepeatStoresNothing() throws {
        let folder = try scratchFolder()
        let whole = try ingest(folder + "/whole.db", slots: 1 << 24, beats: 1 << 24)
        let pieces = try ingest(folder + "/pieces.db", slots: 100, beats: 1_000)
        #expect(whole.slotsInserted > 1_000 && whole.beatsInserted > 10_000)
        #expect(pieces.slotsInserted == whole.slotsInserted && pieces.beatsInserted == whole.beatsInserted)
        #expect(try !entries(folder + "/whole.db").isEmpty)
        #expect(try entries(folder + "/pieces.db") == entries(folder + "/whole.db"))
        #expect(try openStore(folder + "/pieces.db", mustExist: true).pendingRecompute().isEmpty)

        let again = try ingest(folder + "/pieces.db", slots: 100, beats: 1_000)
        #expect(again.slotsInserted == 0 && again.beatsInserted == 0 && again.slotsPresent == whole.slotsInserted)
        #expect(again.outboxEntries == 0)
        #expect(try entries(folder + "/pieces.db") == entries(folder + "/whole.db"))
    }

    @Test func theStreamStoresWhatTheWholeCaptureInOneTransactionStored() throws {
        let folder = try scratchFolder()
        _ = try ingest(folder + "/streamed.db", slots: 500, beats: 5_000)
        let store = try openStore(folder + "/whole.db", mustExist: false)
        let files = VerifiedFile.files(of: try loadCapture(capture).capture)
        _ = try IngestPipeline(store: store, given: ParticipantProfile(timeZone: TimeZone(identifier: "UTC"))).ingest(files)
        #expect(try !entries(folder + "/whole.db").isEmpty)
        #expect(try entries(folder + "/streamed.db") == entries(folder + "/whole.db"))
        let streamed = try openStore(folder + "/streamed.db", mustExist: true)
        #expect(try streamed.beats(device: "V1DAY001", fromMs: 0, toMs: Int64.max / 2).count
                == store.beats(device: "V1DAY001", fromMs: 0, toMs: Int64.max / 2).count)
    }

    @Test func aRunStoppedBeforeItsRecomputeLeavesItsDaysPendingForTheNext() throws {
        let folder = try scratchFolder()
        let reference = try ingest(folder + "/reference.db", slots: 1 << 24, beats: 1 << 24)
        var stopped = try streamer(folder + "/d.db", slots: 500, beats: 5_000)
        #expect(try !stopped.storeCaptures([capture]))
        // Killed here: every row is committed, its days are pending, no summary is written yet.
        let store = try openStore(folder + "/d.db", mustExist: true)
        let pending = try store.pendingRecompute()
        #expect(pending.map(\.device) == ["V1DAY001"])
        let pendingDates = Set(pending.first?.dates ?? [])
        let referenceDates = try #require(reference.recomputed.first?.report.dates)
        #expect(!referenceDates.isEmpty)
        #expect(pendingDates.isSuperset(of: referenceDates))
        #expect(try entries(folder + "/d.db").isEmpty)
        // The next ingest of anything recomputes them.
        _ = try ingest(folder + "/d.db", slots: 500, beats: 5_000)
        #expect(try store.pendingRecompute().isEmpty)
        #expect(try entries(folder + "/d.db") == entries(folder + "/reference.db"))
    }
}
