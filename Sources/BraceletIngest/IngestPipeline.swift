import BraceletDecoder
import BraceletStore
import BraceletSummaries
import BraceletTransport
import BraceletVitality
import Foundation

/// The one way data gets into the store: verified files from a capture, a live link or a CSV export
/// in, stored samples, transfer progress, recomputed summaries and outbox entries out.
///
/// Contract of ``ingest(_:)``:
/// - **One transaction per call.** The files' slots and beats (idempotent: a row the store already
///   has is left alone), the progress of each file's transfer, the summaries of every local day the
///   new rows touched (recomputed by ``SummaryRecomputer`` from everything stored) and the outbox
///   entries of the summaries that changed are committed together, or nothing is. After a crash the
///   store never holds data whose summaries were not recomputed.
/// - **Queued when stored.** A live session hands each verified file over as it arrives (the
///   pipeline is its ``TransferSink``), so each file's summaries are in the outbox the moment the file
///   is committed, before the bracelet erases it: a gateway that stays connected delivers within
///   one file, never only when the link closes.
/// - **A repeated file changes nothing**: a transferred file whose transfer is already committed is
///   skipped; re-stored rows are found present and touch no day; equal recomputed content writes no
///   outbox entry.
/// - **Off the cooperative pool.** All SQLite work runs on the pipeline's own `SerialWorkQueue`.
///   The synchronous calls block the calling thread until the commit is durable (a session must not
///   erase earlier); the `async` variant suspends instead of blocking a cooperative thread.
///   Never call the pipeline from inside `onIngested` (it runs on that queue).
public final class IngestPipeline: @unchecked Sendable {
    /// The database.
    public let store: Store
    /// How touched days are recomputed.
    public let recomputer: SummaryRecomputer
    /// Called on the pipeline's queue after each committed ingest (a live session's progress).
    public let onIngested: (@Sendable (IngestReport) -> Void)?
    private let queue = SerialWorkQueue(label: "bracelet.ingest")

    /// A pipeline into `store` that recomputes days with `configuration` (time zone, zones) and,
    /// when `age` is given, stores vitality metrics too.
    public init(store: Store, configuration: SummaryConfiguration, age: Int?,
                onIngested: (@Sendable (IngestReport) -> Void)? = nil) {
        self.store = store
        recomputer = SummaryRecomputer(configuration: configuration, age: age)
        self.onIngested = onIngested
    }

    /// Stores `files` and everything that follows from them in one transaction (see the contract
    /// above), blocking until it is durable.
    ///
    /// - Throws: ``StoreError`` when the database refuses the write (nothing of `files` is stored),
    ///   or the summary engine's error when a touched day cannot be recomputed (likewise).
    public func ingest(_ files: [VerifiedFile]) throws -> IngestReport {
        try queue.sync { try self.run(files) }
    }

    /// Like ``ingest(_:)``, suspending instead of blocking while the pipeline's queue does the work.
    public func ingest(_ files: [VerifiedFile]) async throws -> IngestReport {
        try await queue.run { try self.run(files) }
    }

    /// Records that the bracelet erased the committed file of `fileKind` (call it when the session
    /// reports the erase).
    public func recordErased(serial: String, fileKind: String) throws {
        _ = try queue.sync { try store.markErased(device: serial, fileKind: fileKind) }
    }

    private func run(_ files: [VerifiedFile]) throws -> IngestReport {
        let report = try store.transaction {
            var report = IngestReport()
            var touched: [String: Set<String>] = [:]
            let zone = recomputer.configuration.timeZone
            for file in files {
                let (slots, beats) = try storeRows(of: file, report: &report)
                report.slotsInserted += slots.inserted
                report.slotsPresent += slots.alreadyPresent
                report.beatsInserted += beats.inserted
                report.beatsPresent += beats.alreadyPresent
                let dates = slots.touchedLocalDates(in: zone) + beats.touchedLocalDates(in: zone)
                // A night that starts on date D is the sleep session of D + 1 (recorded on the day it
                // ends), so rows of D change D + 1's sleep and sleep-HRV summaries too.
                let following = dates.compactMap { LocalDate(iso: $0)?.adding(days: 1).description }
                if !dates.isEmpty { touched[file.serial, default: []].formUnion(dates + following) }
            }
            for (device, dates) in touched.sorted(by: { $0.key < $1.key }) {
                report.recomputed.append((device, try recomputer.recompute(device: device, dates: Array(dates), store: store)))
            }
            return report
        }
        onIngested?(report)
        return report
    }

    /// Stores one file's rows (and its transfer progress) inside the open transaction.
    private func storeRows(of file: VerifiedFile, report: inout IngestReport) throws -> (InsertReport, InsertReport) {
        guard let transfer = file.transfer else {
            let beats = file.beats.isEmpty ? InsertReport() : try store.insertBeats(file.beats, device: file.serial, model: file.model)
            let slots = file.slots.isEmpty && !file.beats.isEmpty
                ? InsertReport() : try store.insertSlots(file.slots, device: file.serial, model: file.model)
            return (slots, beats)
        }
        let progress = try store.beginTransfer(device: file.serial, model: file.model, fileKind: transfer.fileKind,
                                               sealedSize: transfer.sealedSize, crc: transfer.crc)
        guard progress.committed < transfer.sealedSize else {
            report.repeatedFiles += 1  // committed before the link dropped, not yet erased
            return (InsertReport(), InsertReport())
        }
        let chunk = try store.commitTransferChunk(device: file.serial, fileKind: transfer.fileKind, offset: progress.committed,
                                                  byteCount: transfer.sealedSize - progress.committed,
                                                  slots: file.slots, beats: file.beats)
        return (chunk.slots, chunk.beats)
    }
}

extension IngestPipeline: TransferSink {
    /// Decodes and stores one file of a live session (see ``ingest(_:)``); firmware logs are not
    /// stored. Returns only when the file and its summaries are durable, so the session may erase it.
    public func commit(_ file: TransferredFile) throws {
        guard let verified = try VerifiedFile(transferred: file) else { return }
        _ = try ingest([verified])
    }
}

/// What one ``IngestPipeline/ingest(_:)`` call stored.
public struct IngestReport: Sendable {
    /// New slots stored.
    public var slotsInserted = 0
    /// Slots the store already had.
    public var slotsPresent = 0
    /// New beats stored.
    public var beatsInserted = 0
    /// Beats the store already had.
    public var beatsPresent = 0
    /// Transferred files skipped because their transfer was already committed.
    public var repeatedFiles = 0
    /// Per device (by serial, in order), what recomputing its touched days wrote.
    public var recomputed: [(device: String, report: RecomputeReport)] = []

    /// Outbox entries written (changed daily summaries and sleep sessions).
    public var outboxEntries: Int {
        recomputed.reduce(0) { $0 + $1.report.changedSummaries + $1.report.changedSleepSessions }
    }
}
