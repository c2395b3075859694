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
///   stores each verified file as it arrives (``storeDeferringSummaries(_:)``: rows and the touched
///   days recorded as pending, a bounded piece per transaction, the transfer progress with the last
///   piece, all durable before the bracelet erases the file) and recomputes the pending days once,
///   a bounded number of days per transaction, when the session reports the sync ended
///   (``recomputePending()``): the files of one sync touch the same days (a metrics and a
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
    /// Called on the pipeline's queue as pending days are recomputed: ``WorkProgress/recomputing(done:total:)``
    /// before the first day and after each day stored.
    public let onProgress: (@Sendable (WorkProgress) -> Void)?
    private let queue = SerialWorkQueue(label: "bracelet.ingest")

    /// A pipeline into `store` whose days are computed with each device's participant record,
    /// `given` creating or completing it (see ``given`` and ``defaultTimeZone``).
    public init(store: Store, given: ParticipantProfile, defaultTimeZone: TimeZone? = nil,
                onIngested: (@Sendable (IngestReport) -> Void)? = nil, onProgress: (@Sendable (WorkProgress) -> Void)? = nil) {
        self.store = store
        self.given = given
        self.defaultTimeZone = defaultTimeZone
        self.onIngested = onIngested
        self.onProgress = onProgress
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

    /// Stores `files` like ``ingest(_:)`` but leaves their summaries for later: the rows and the local
    /// days they touched (``Store/markForRecompute(device:dates:)``) are committed a bounded piece per
    /// transaction, each file's transfer progress with its last piece, blocking until it is durable; ``recomputePending()``
    /// recomputes those days later, once however many files touched them.
    ///
    /// - Throws: ``StoreError`` when the database refuses the write (nothing of `files` is stored).
    public func storeDeferringSummaries(_ files: [VerifiedFile]) throws -> IngestReport {
        try queue.sync { try self.stage(files, records: [:]) }
    }

    /// ``storeDeferringSummaries(_:)`` with the participant records of the files' devices already
    /// reconciled (``reconciledRecord(device:)``), for a caller that stores one device's data in
    /// many pieces: its record, and the zone its days are cut in, are worked out once, not again
    /// for every piece. A device without a record in `records` is reconciled here.
    public func storeDeferringSummaries(_ files: [VerifiedFile], records: [String: ParticipantRecord]) throws -> IngestReport {
        try queue.sync { try self.stage(files, records: records) }
    }

    /// Stores a small batch like ``storeDeferringSummaries(_:)`` in ONE transaction, together with
    /// what `alongside` writes of it (given the batch's report): both are durable with one fsync, or
    /// neither is. For a stream's batches of a few seconds; a transferred file goes in pieces instead.
    ///
    /// - Throws: ``StoreError`` when the database refuses the write, or what `alongside` throws
    ///   (nothing of the batch is stored).
    public func storeDeferringSummaries(_ files: [VerifiedFile], alongside: (IngestReport) throws -> Void) throws -> IngestReport {
        try queue.sync {
            try store.transaction {
                let report = try self.stage(files, records: [:])
                try alongside(report)
                return report
            }
        }
    }

    /// Recomputes every day recorded as pending, whether this pipeline stored its rows or an earlier
    /// process did and ended before recomputing it (killed between a commit and the end of its sync),
    /// and clears those records, ``daysPerRecomputeTransaction`` days per transaction: a day's
    /// summaries, their outbox entries and the clearing of its record are durable together, or the
    /// day stays pending. Nothing pending: nothing to do.
    ///
    /// - Throws: ``StoreError`` or the summary engine's error; the days then stay pending.
    public func recomputePending() throws -> IngestReport {
        try queue.sync { try self.recomputeRecorded(device: nil) }
    }

    /// ``recomputePending()`` for one device only (a standard sensor's stream recomputes its own
    /// days on its schedule, never another device's).
    public func recomputePending(device: String) throws -> IngestReport {
        try queue.sync { try self.recomputeRecorded(device: device) }
    }

    /// The participant record of `device`, created or completed from ``given`` as an ingest of its
    /// data would (a stream needs the wearer's zone before its first rows are stored).
    public func participantRecord(device: String) throws -> ParticipantRecord {
        try reconciledRecord(device: device).record
    }

    /// ``participantRecord(device:)`` with what reconciling it filled into the record (the report's
    /// ``IngestReport/recordChanges``).
    public func reconciledRecord(device: String) throws -> (record: ParticipantRecord, report: IngestReport) {
        try queue.sync {
            var report = IngestReport()
            let record = try self.reconcile(device: device, report: &report)
            return (record, report)
        }
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

    /// Stores the files' rows and transfer progress and records the days they touched as pending,
    /// without recomputing them. A transferred file goes in pieces of a bounded number of rows, each
    /// its own transaction holding its rows and the pending records of the days they touch (so no
    /// committed row is ever outside a pending or recomputed day); its transfer progress is committed
    /// with the last piece, so a file cut short by a crash is stored again whole (its stored rows are
    /// found present) and never counts as committed before all of it is. The devices' participant
    /// records are reconciled with ``given`` before any row is stored.
    private func stage(_ files: [VerifiedFile], records known: [String: ParticipantRecord]) throws -> IngestReport {
        var report = IngestReport()
        let records = known.merging(try reconcile(files.filter { known[$0.serial] == nil }, report: &report)) { given, _ in given }
        for file in files {
            _ = try storeRows(of: file, record: records[file.serial], report: &report) { piece in
                try store.transaction {
                    let dates = try piece()
                    if !dates.isEmpty { try store.markForRecompute(device: file.serial, dates: dates.sorted()) }
                    return dates
                }
            }
        }
        onIngested?(report)
        return report
    }

    /// The most pending days recomputed in one transaction: the transaction's changed pages (about
    /// 40 kB a day) stay in memory until it commits, so a backlog of a year is recomputed in pieces.
    static let daysPerRecomputeTransaction = 56

    /// Recomputes the pending days, each with the settings its device's record holds on it, and
    /// clears their records, a bounded number of days per transaction: each transaction holds those
    /// days' summaries, outbox entries and the clearing of their records, so a process ended in
    /// between leaves the rest pending, never a cleared day without its summaries.
    private func recomputeRecorded(device only: String?) throws -> IngestReport {
        var report = IngestReport()
        let pending = try store.pendingRecompute().filter { only == nil || only == $0.device }
        let total = pending.reduce(0) { $0 + $1.dates.count }
        var done = 0
        if total > 0 { onProgress?(.recomputing(done: 0, total: total)) }
        for (device, dates) in pending {
            let recomputer = ParticipantRecomputer(record: try reconcile(device: device, report: &report))
            var merged = RecomputeReport()
            for start in stride(from: 0, to: dates.count, by: Self.daysPerRecomputeTransaction) {
                let group = Array(dates[start..<min(start + Self.daysPerRecomputeTransaction, dates.count)])
                let before = done
                let part = try store.transaction {
                    // Day by day as each is stored, not only once the transaction's days are all done.
                    let part = try recomputer.recompute(dates: group, store: store) { days in
                        done = min(done + days, before + group.count)
                        self.onProgress?(.recomputing(done: done, total: total))
                    }
                    try store.clearPendingRecompute(device: device, dates: group)
                    return part
                }
                merged.merge(part)
                if done != before + group.count {
                    done = before + group.count
                    onProgress?(.recomputing(done: done, total: total))
                }
            }
            report.recomputed.append((device, merged))
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
            let dates = try storeRows(of: file, record: records[file.serial], report: &report) { piece in try piece() }
            if !dates.isEmpty { touched[file.serial, default: []].formUnion(dates) }
        }
        return touched
    }

    /// The most rows of a transferred file decoded and stored at once: about 4 MB of decoded beats
    /// or slots, and a few MB of changed pages, per piece.
    public static let slotsPerPiece = 32_768, beatsPerPiece = 262_144

    /// Stores one file's rows (and its transfer progress), a piece at a time: each piece's work runs
    /// inside `inPiece` (a transaction of its own, or directly inside an open one) and returns the
    /// local days its new rows change, cut in the zones of the device's `record` (every device of a
    /// call has one: ``reconcile(_:report:)`` made it). Returns the days of all pieces.
    private func storeRows(of file: VerifiedFile, record: ParticipantRecord?, report: inout IngestReport,
                           inPiece: (() throws -> Set<String>) throws -> Set<String>) throws -> Set<String> {
        func counted(_ slots: InsertReport, _ beats: InsertReport) throws -> Set<String> {
            report.slotsInserted += slots.inserted
            report.slotsPresent += slots.alreadyPresent
            report.beatsInserted += beats.inserted
            report.beatsPresent += beats.alreadyPresent
            guard let record else { return [] }
            let dates = try record.localDates { zone in slots.touchedLocalDates(in: zone) + beats.touchedLocalDates(in: zone) }
            // A night that starts on date D is the sleep session of D + 1 (recorded on the day it
            // ends), so rows of D change D + 1's sleep and sleep-HRV summaries too.
            let following = dates.compactMap { LocalDate(iso: $0)?.adding(days: 1).description }
            return dates.union(following)
        }
        guard let transfer = file.transfer else {
            return try inPiece {
                let beats = file.beats.isEmpty ? InsertReport() : try store.insertBeats(file.beats, device: file.serial, model: file.model)
                let slots = file.slots.isEmpty && !file.beats.isEmpty
                    ? InsertReport() : try store.insertSlots(file.slots, device: file.serial, model: file.model)
                return try counted(slots, beats)
            }
        }
        let progress = try store.beginTransfer(device: file.serial, model: file.model, fileKind: transfer.fileKind,
                                               sealedSize: transfer.sealedSize, crc: transfer.crc)
        guard progress.committed < transfer.sealedSize else {
            report.repeatedFiles += 1  // committed before the link dropped, not yet erased
            return []
        }
        func commit(_ slots: [Slot], _ beats: [Beat], last: Bool) throws -> Set<String> {
            try inPiece {
                let chunk = try store.commitTransferChunk(device: file.serial, fileKind: transfer.fileKind, offset: progress.committed,
                                                          byteCount: last ? transfer.sealedSize - progress.committed : 0,
                                                          slots: slots, beats: beats)
                return try counted(chunk.slots, chunk.beats)
            }
        }
        // One piece is held back so that the last one goes with the transfer's progress.
        var touched = Set<String>()
        var held: (slots: [Slot], beats: [Beat])?
        try file.forEachBatch(slots: Self.slotsPerPiece, beats: Self.beatsPerPiece) { slots, beats in
            if let piece = held { touched.formUnion(try commit(piece.slots, piece.beats, last: false)) }
            held = (slots, beats)
        }
        touched.formUnion(try commit(held?.slots ?? [], held?.beats ?? [], last: true))
        return touched
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
