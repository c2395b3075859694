import BraceletDecoder
import BraceletStore
import BraceletSummaries
import BraceletTransport
import BraceletVitality
import Foundation

/// The one way data gets into the store: verified files from a capture, a live link or a CSV export
/// in, stored samples, transfer progress, recomputed summaries and outbox entries out.
///
/// Contract:
/// - **One transaction per call** of ``ingest(_:)``. The files' slots and beats (idempotent: a row
///   the store already has is left alone), the progress of each file's transfer, the summaries of
///   every local day the new rows touched (recomputed by ``SummaryRecomputer`` from everything
///   stored) and the outbox entries of the summaries that changed are committed together, or
///   nothing is. After a crash the store never holds data whose summaries were not recomputed.
///   Into a database without samples it is a ``BraceletStore/Store/loadingTransaction(_:)``: the
///   new pages are written once, not through the write-ahead log.
/// - **A live session recomputes once per sync.** As a session's ``TransferSink`` the pipeline
///   stores each verified file as it arrives (``storeDeferringSummaries(_:)``: rows, transfer
///   progress and the touched days recorded as pending, in one transaction, before the bracelet
///   erases the file) and recomputes the pending days once, when the session reports the sync
///   ended (``recomputePending()``): the files of one sync touch the same days (a metrics and a
///   beats file at least, several of each after a long absence), and recomputing after each file
///   summarised those days again for every file. The pending records are durable, so a process
///   killed in between leaves the days for the next ``recomputePending()`` (the next `listen`),
///   never a committed row outside its summaries.
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
    /// The settings the command was given (its flags): a device without a participant record gets
    /// one from them; a setting its record lacks is filled in from them; one that disagrees with its
    /// record is refused (see ``BraceletVitality/Participants/reconcile(_:device:store:now:)``). Each
    /// day is computed with the settings its device's record holds on that day.
    public let given: ParticipantProfile
    /// The zone of a device whose record has none when ``given`` has none either (a capture's
    /// recorded offset, the gateway's zone); it is written into the device's record.
    public let defaultTimeZone: TimeZone?
    /// Called on the pipeline's queue after each committed ingest (a live session's progress).
    public let onIngested: (@Sendable (IngestReport) -> Void)?
    private let queue = SerialWorkQueue(label: "bracelet.ingest")

    /// A pipeline into `store` whose days are computed with each device's participant record,
    /// `given` creating or completing it (see ``given`` and ``defaultTimeZone``).
    public init(store: Store, given: ParticipantProfile, defaultTimeZone: TimeZone? = nil,
                onIngested: (@Sendable (IngestReport) -> Void)? = nil) {
        self.store = store
        self.given = given
        self.defaultTimeZone = defaultTimeZone
        self.onIngested = onIngested
    }

    /// A pipeline whose given settings are every value of `configuration` (time zone, zones,
    /// quality, slot, height, step goal) and `age`.
    public convenience init(store: Store, configuration: SummaryConfiguration, age: Int?,
                            onIngested: (@Sendable (IngestReport) -> Void)? = nil) {
        let given = ParticipantProfile(timeZone: configuration.timeZone, age: age ?? configuration.age, hrMax: configuration.hrMax,
                                       hrMaxFormula: configuration.hrMaxFormula, heightCm: configuration.heightCm,
                                       stepGoal: configuration.stepGoal, slotSeconds: configuration.summarySlotSeconds,
                                       minQuality: configuration.qualityThreshold)
        self.init(store: store, given: given, onIngested: onIngested)
    }

    /// Stores `files` and everything that follows from them in one transaction (see the contract
    /// above), blocking until it is durable.
    ///
    /// - Throws: ``StoreError`` when the database refuses the write (nothing of `files` is stored),
    ///   ``IngestError/participant(_:)`` when the given settings disagree with a device's record
    ///   (likewise), or the summary engine's error when a touched day cannot be recomputed (likewise).
    public func ingest(_ files: [VerifiedFile]) throws -> IngestReport {
        try queue.sync { try self.run(files) }
    }

    /// Like ``ingest(_:)``, suspending instead of blocking while the pipeline's queue does the work.
    public func ingest(_ files: [VerifiedFile]) async throws -> IngestReport {
        try await queue.run { try self.run(files) }
    }

    /// Stores `files` like ``ingest(_:)`` but leaves their summaries for later: the rows, each file's
    /// transfer progress and the local days they touched (``Store/markForRecompute(device:dates:)``)
    /// are committed in one transaction, blocking until it is durable; ``recomputePending()``
    /// recomputes those days later, once however many files touched them.
    ///
    /// - Throws: ``StoreError`` when the database refuses the write (nothing of `files` is stored).
    public func storeDeferringSummaries(_ files: [VerifiedFile]) throws -> IngestReport {
        try queue.sync { try self.stage(files) }
    }

    /// Recomputes every day recorded as pending, whether this pipeline stored its rows or an earlier
    /// process did and ended before recomputing it (killed between a commit and the end of its sync),
    /// and clears those records, all in one transaction: the summaries, their outbox entries and
    /// the clearing are durable together, or the days stay pending. Nothing pending: nothing to do.
    ///
    /// - Throws: ``StoreError`` or the summary engine's error; the days then stay pending.
    public func recomputePending() throws -> IngestReport {
        try queue.sync { try self.recomputeRecorded() }
    }

    /// Records that the bracelet erased the committed file of `fileKind` (call it when the session
    /// reports the erase).
    public func recordErased(serial: String, fileKind: String) throws {
        _ = try queue.sync { try store.markErased(device: serial, fileKind: fileKind) }
    }

    private func run(_ files: [VerifiedFile]) throws -> IngestReport {
        let report = try store.loadingTransaction {
            var report = IngestReport()
            let records = try reconcile(files, report: &report)
            let touched = try storeAll(files, records: records, report: &report)
            for (device, dates) in touched.sorted(by: { $0.key < $1.key }) {
                guard let record = records[device] else { continue }
                report.recomputed.append((device, try ParticipantRecomputer(record: record).recompute(dates: Array(dates), store: store)))
            }
            return report
        }
        onIngested?(report)
        return report
    }

    /// Stores the files' rows and transfer progress and records the days they touched as pending, in
    /// one transaction, without recomputing them.
    private func stage(_ files: [VerifiedFile]) throws -> IngestReport {
        let report = try store.transaction {
            var report = IngestReport()
            let records = try reconcile(files, report: &report)
            for (device, dates) in try storeAll(files, records: records, report: &report).sorted(by: { $0.key < $1.key }) {
                try store.markForRecompute(device: device, dates: dates.sorted())
            }
            return report
        }
        onIngested?(report)
        return report
    }

    /// Recomputes the pending days and clears their records in one transaction.
    private func recomputeRecorded() throws -> IngestReport {
        let report = try store.transaction {
            var report = IngestReport()
            for (device, dates) in try store.pendingRecompute() {
                let record = try reconcile(device: device, report: &report)
                report.recomputed.append((device, try ParticipantRecomputer(record: record).recompute(dates: dates, store: store)))
                try store.clearPendingRecompute(device: device, dates: dates)
            }
            return report
        }
        if !report.recomputed.isEmpty { onIngested?(report) }
        return report
    }

    /// The participant record of every device of `files`, reconciled with ``given`` before any row
    /// is stored (a conflict refuses the whole call).
    private func reconcile(_ files: [VerifiedFile], report: inout IngestReport) throws -> [String: ParticipantRecord] {
        var records: [String: ParticipantRecord] = [:]
        for serial in Set(files.map(\.serial)).sorted() {
            records[serial] = try reconcile(device: serial, report: &report)
        }
        return records
    }

    private func reconcile(device: String, report: inout IngestReport) throws -> ParticipantRecord {
        var given = given
        if given.timeZone == nil, let zone = defaultTimeZone,
           try ParticipantRecord.load(device: device, from: store).text(.timeZone, on: "9999-12-31") == nil {
            given.timeZone = zone
        }
        let record: ParticipantRecord, filled: ParticipantChangeReport?
        do { (record, filled) = try Participants.reconcile(given, device: device, store: store) } catch let error as ParticipantError {
            throw IngestError.participant(error.description(database: store.path))
        }
        if let filled { report.recordChanges.append((device, filled)) }
        return record
    }

    /// Stores every file's rows inside the open transaction; returns the local days (per device
    /// serial) whose summaries the new rows change, each cut in the zone its device's record holds
    /// on it.
    private func storeAll(_ files: [VerifiedFile], records: [String: ParticipantRecord],
                          report: inout IngestReport) throws -> [String: Set<String>] {
        var touched: [String: Set<String>] = [:]
        for file in files {
            let (slots, beats) = try storeRows(of: file, report: &report)
            report.slotsInserted += slots.inserted
            report.slotsPresent += slots.alreadyPresent
            report.beatsInserted += beats.inserted
            report.beatsPresent += beats.alreadyPresent
            guard let record = records[file.serial] else { continue }
            let dates = try record.localDates { zone in slots.touchedLocalDates(in: zone) + beats.touchedLocalDates(in: zone) }
            // A night that starts on date D is the sleep session of D + 1 (recorded on the day it
            // ends), so rows of D change D + 1's sleep and sleep-HRV summaries too.
            let following = dates.compactMap { LocalDate(iso: $0)?.adding(days: 1).description }
            if !dates.isEmpty { touched[file.serial, default: []].formUnion(dates.union(following)) }
        }
        return touched
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
    /// Decodes and stores one file of a live session (``storeDeferringSummaries(_:)``); firmware
    /// logs are not stored. Returns only when the file's rows, its transfer progress and its touched
    /// days' pending records are durable, so the session may erase it.
    public func commit(_ file: TransferredFile) throws {
        guard let verified = try VerifiedFile(transferred: file) else { return }
        _ = try storeDeferringSummaries([verified])
    }

    /// Recomputes the days the session's files touched, once (``recomputePending()``).
    public func syncEnded() throws {
        _ = try recomputePending()
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
    /// Per device, what filling in or creating its participant record from the given settings did.
    public var recordChanges: [(device: String, report: ParticipantChangeReport)] = []

    /// Outbox entries written (changed daily summaries and sleep sessions).
    public var outboxEntries: Int {
        recomputed.reduce(0) { $0 + $1.report.changedSummaries + $1.report.changedSleepSessions }
    }
}
