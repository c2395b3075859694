import BraceletCapture
import BraceletDecoder
import BraceletProtocol
import BraceletIngest
import BraceletStore
import BraceletVitality
import Foundation

/// Streams `ingest`'s captures into the store: each capture's records are decoded as it is read
/// and stored a bounded piece at a time (``IngestPipeline/storeDeferringSummaries(_:)``: each piece
/// its own transaction with the pending records of the days it touches), and the pending days are
/// recomputed at the end (``IngestPipeline/recomputePending()``, a bounded number per transaction).
/// Memory holds one piece and a window of the capture, so it does not grow with the history.
struct CaptureStreamer {
    let store: Store
    let given: ParticipantProfile
    /// The database's path, for messages.
    let database: String
    /// The most slots or beats of one device held before they are stored: by default about 4 MB of
    /// decoded rows, and a few MB of changed pages, per transaction (as a live file's pieces).
    let slotsPerPiece: Int, beatsPerPiece: Int
    /// Where the ingest stands: each file read (bytes or rows) and the recompute (days).
    let onProgress: (@Sendable (WorkProgress) -> Void)?

    /// Whether the zone a device without one gets has been taken (see ``zoneFrom(_:)``).
    private var zoneDecided = false
    private var pipeline: IngestPipeline?
    /// What the stored pieces added up to (the recompute's report gets it at the end).
    private var stored: (slots: Int, slotsPresent: Int, beats: Int, beatsPresent: Int) = (0, 0, 0, 0)
    private var recordChanges: [(device: String, report: ParticipantChangeReport)] = []
    /// Whether any capture held a bracelet file transfer, or any CSV history rows.
    private var found = false
    /// The rows read but not yet stored, all of one device.
    private var slots: [Slot] = [], beats: [Beat] = []
    private var device: (serial: String, model: DeviceModel?)?
    /// Pieces read before the zone was taken (beats files that came before the first metrics file).
    private var held: [VerifiedFile] = []
    /// The piece being stored on another thread while the next one is read (see ``store(_:)``).
    private var storing: Background<IngestReport>?

    init(store: Store, given: ParticipantProfile, database: String,
         slotsPerPiece: Int = IngestPipeline.slotsPerPiece, beatsPerPiece: Int = IngestPipeline.beatsPerPiece,
         onProgress: (@Sendable (WorkProgress) -> Void)? = nil) {
        self.store = store
        self.given = given
        self.database = database
        self.slotsPerPiece = slotsPerPiece
        self.beatsPerPiece = beatsPerPiece
        self.onProgress = onProgress
    }

    /// Stores every capture's rows, with their days pending; returns whether any capture was
    /// damaged or incomplete (what was recovered is stored).
    mutating func storeCaptures(_ paths: [String]) throws -> Bool {
        do { return try readCaptures(paths) } catch {
            // Nothing is left writing when the caller sees the error.
            _ = try? collect()
            throw error
        }
    }

    private mutating func readCaptures(_ paths: [String]) throws -> Bool {
        var damaged = false
        for path in paths {
            var failure: (any Error)?
            if let onProgress {
                let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
                onProgress(.storing(file: path, done: 0, total: size, unit: .bytes))
            }
            let reading = onProgress.map { report in { (done: Int, total: Int) in report(.storing(file: path, done: done, total: total, unit: .bytes)) } }
            let replayed = try streamCapture(path, beatsLast: false, progress: reading, metrics: { _, header, columns in
                guard failure == nil else { return }
                do {
                    if !zoneDecided { zoneFrom(header) }
                    try take(header) { me in columns.forEachSlot { slot, _ in me.slots.append(slot) } }
                } catch { failure = error }
            }, beats: { _, header, batch in
                guard failure == nil else { return }
                do { try take(header) { me in me.beats.append(contentsOf: batch) } } catch { failure = error }
            }).capture
            if let failure { throw failure }
            if replayed.metricsFiles.isEmpty && replayed.beatsFiles.isEmpty {
                Log.warning("warning: \(path) holds no bracelet file transfer; skipped")
                continue
            }
            if replayed.isIncomplete {
                damaged = true
                Log.warning("warning: \(path) is damaged or incomplete; stored what was recovered (see bracelet replay \(path))")
            }
            found = true
            // The first capture with bracelet data but no metrics file records no offset.
            if !zoneDecided { zoneFrom(nil) }
            try flush()
        }
        return damaged
    }

    /// Stores a CSV history's rows (``BraceletIngest/CSVHistory``: a bounded piece per transaction,
    /// the touched days pending), under `serial` when the file has no `device` column. A device
    /// without a time zone gets UTC days when no --tz is given, as `summarize --csv` cuts them.
    mutating func storeCSV(_ path: String, serial: String?, intervalSeconds: Int?) throws {
        let parsed = try SampleInput.csvRows(path, intervalSeconds: intervalSeconds)
        for note in SampleInput.csvNotes(parsed, path: path) { logNote(note) }
        let files: [VerifiedFile]
        do { files = try CSVHistory.files(parsed, serial: serial, source: path, slotsPerPiece: slotsPerPiece, beatsPerPiece: beatsPerPiece) } catch {
            throw CLIError("\(error)")
        }
        guard !files.isEmpty else {
            Log.warning("warning: \(path) holds no slot or beat rows; skipped")
            return
        }
        if !zoneDecided {
            if given.timeZone == nil {
                Log.info("note: no --tz given; a device without a time zone in its participant record gets days in UTC, as `bracelet summarize --csv` cuts them")
            }
            decide(zone: TimeZone(identifier: "UTC"))
        }
        try flush()
        let rows = files.reduce(0) { $0 + $1.slots.count + $1.beats.count }
        var done = 0
        onProgress?(.storing(file: path, done: 0, total: rows, unit: .rows))
        for file in files {
            held.append(file)
            try flush()
            done += file.slots.count + file.beats.count
            onProgress?(.storing(file: path, done: done, total: rows, unit: .rows))
        }
        found = true
    }

    /// Stores what is still held and recomputes every pending day; the report of the whole ingest.
    mutating func finish() throws -> IngestReport {
        guard found else { throw CLIError("no capture held bracelet data and no CSV history held rows; nothing stored", exitCode: 2) }
        try flush()
        try collect()
        // The piece arrays keep their memory between pieces, not through the recompute (14 MB).
        slots = []
        beats = []
        var report = try makePipeline().recomputePending()
        (report.slotsInserted, report.slotsPresent, report.beatsInserted, report.beatsPresent) = stored
        report.recordChanges = recordChanges + report.recordChanges
        return report
    }

    /// Takes the zone a device without one in its participant record gets when no --tz is given:
    /// the offset the first metrics file of the first capture with bracelet data recorded (`nil`:
    /// that capture has none). The pieces held until then are stored.
    private mutating func zoneFrom(_ header: FileHeader?) {
        decide(zone: header.flatMap { TimeZone(secondsFromGMT: $0.timeZoneOffsetMinutes * 60) })
    }

    /// Takes `zone` as the zone of a device without one (see ``zoneFrom(_:)``).
    private mutating func decide(zone: TimeZone?) {
        zoneDecided = true
        pipeline = IngestPipeline(store: store, given: given, defaultTimeZone: zone, onProgress: onProgress)
    }

    /// Adds the rows `append` puts into ``slots`` or ``beats`` for the file of `header`, storing
    /// what was held first when the device changes and the piece when it is full.
    private mutating func take(_ header: FileHeader, _ append: (inout Self) -> Void) throws {
        if let device, device.serial != header.serial { try flush() }
        device = (header.serial, header.model)
        append(&self)
        if slots.count >= slotsPerPiece || beats.count >= beatsPerPiece { try flush() }
    }

    /// Stores the rows read so far (with the pieces held for the zone, once it is taken).
    private mutating func flush() throws {
        if let device, !slots.isEmpty || !beats.isEmpty {
            held.append(VerifiedFile(serial: device.serial, model: device.model, slots: slots, beats: beats))
        }
        // Emptied, their capacity kept: a piece stored on the other thread keeps the arrays it was
        // given, and these get new memory; otherwise they keep theirs for the next piece.
        defer {
            slots.removeAll(keepingCapacity: true)
            beats.removeAll(keepingCapacity: true)
        }
        guard zoneDecided else { return }
        defer { held = [] }
        for file in held { try store(file) }
    }

    /// Stores `file` on another thread once the piece before it is stored, and returns: the capture
    /// is read and decoded on this thread meanwhile (a third of the time the two took one after the
    /// other). One piece is stored at a time, in order; memory holds it and the one being read.
    private mutating func store(_ file: VerifiedFile) throws {
        try collect()
        let pipeline = makePipeline(), database = self.database
        storing = Background { try participantCall(database) { try pipeline.storeDeferringSummaries([file]) } }
    }

    /// Waits for the piece being stored, if any, and counts what it stored.
    private mutating func collect() throws {
        guard let storing else { return }
        self.storing = nil
        let part = try storing.value()
        stored.slots += part.slotsInserted
        stored.slotsPresent += part.slotsPresent
        stored.beats += part.beatsInserted
        stored.beatsPresent += part.beatsPresent
        recordChanges += part.recordChanges
    }

    private func makePipeline() -> IngestPipeline {
        pipeline ?? IngestPipeline(store: store, given: given, onProgress: onProgress)
    }
}
