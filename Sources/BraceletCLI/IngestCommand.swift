import ArgumentParser
import BraceletCapture
import BraceletIngest
import BraceletStore
import BraceletSummaries
import BraceletVitality
import Foundation

/// `bracelet ingest`: store captures in the database and recompute the days they touch.
struct IngestCommand: ParsableCommand, LoggingCommand {
    static let configuration = CommandConfiguration(
        commandName: "ingest",
        abstract: "Store captured sessions in the database and recompute the summaries of the days they touch.",
        discussion: """
            Slots and beats are stored idempotently by device and time: ingesting the same capture \
            twice adds nothing and writes no new outbox entry. Each changed daily summary or sleep \
            session writes an outbox entry in the same transaction; `bracelet sync` forwards them. \
            Vitality metrics (VitalityRawMetrics) are stored per day for `bracelet score --db`.

            Exit status: 0 when everything was stored, 3 when a capture is damaged or a transfer is \
            incomplete (what was recovered is stored, as replay exits 3), 2 when no capture holds \
            bracelet data, 1 when a capture or the database cannot be used.

            Example:
              bracelet ingest captures/v2-three-days.btsnoop --db bracelet.db \\
                --tz America/New_York --age 35
            """
    )

    @Argument(help: "One or more captures (.btsnoop).")
    var captures: [String]

    @Option(help: "The database (created with mode 0600 when missing).")
    var db: String

    @OptionGroup var person: PersonOptions

    func validate() throws {
        guard !captures.isEmpty else { throw ValidationError("name at least one capture") }
    }

    @OptionGroup var log: LogOptions

    func run() throws {
        keepFreedHeapForWrites()
        // Opening the database (creating and migrating a new one, checking an old one's structure)
        // and reading the captures need nothing from each other: the store opens meanwhile.
        let database = db
        let existed = FileManager.default.fileExists(atPath: database)
        let opening = Background { try openStore(database, mustExist: false) }
        let loaded = Result { try loadCaptures() }
        if case .failure = loaded, !existed {
            // Nothing to store: the database this run created is removed again, so a failed ingest of a
            // file that is no capture leaves no empty database behind.
            _ = try? opening.value()
            Self.removeDatabaseFiles(database)
        }
        let (files, recordedZone, damaged) = try loaded.get()
        let store = try opening.value()
        // All captures in one call: their rows, the days they touch and the outbox entries commit
        // together, and a day touched by two captures is recomputed once. Each device's days are
        // computed with its participant record; the flags create or complete it, never contradict it.
        let pipeline = IngestPipeline(store: store, given: person.given, defaultTimeZone: recordedZone)
        let report = try participantCall(db) { try pipeline.ingest(files) }
        print("stored \(report.slotsInserted) new slots (\(report.slotsPresent) already present) and \(report.beatsInserted) new beats in \(db)")
        for (device, change) in report.recordChanges {
            if change.before.hasNoSettings, person.tz == nil, let zone = change.after.text(.timeZone, on: "9999-12-31") {
                Log.info("note: no --tz given for the new device \(device); its days are cut in the offset the bracelet recorded (\(zone)), now "
                           + "in its participant record. For correct days across daylight-saving changes: "
                           + "`bracelet person set --db \(db) --device \(device) --tz ZONE`")
            }
            for line in describe(change, device: device) { print(line) }
        }
        for (device, recomputed) in report.recomputed {
            print("\(device): recomputed \(recomputed.dates.count) days; \(recomputed.changedSummaries) daily summaries and \(recomputed.changedSleepSessions) sleep sessions changed (outbox entries written), vitality metrics changed on \(recomputed.changedVitalityDays) days")
            for date in recomputed.dates.sorted() {
                let missing = recomputed.missingVitalityFields[date] ?? []
                if !missing.isEmpty { Log.info("note: \(device) \(date): " + Self.emptyVitalityLine(missing)) }
            }
            let record = try participantCall(db) { try ParticipantRecord.load(device: device, from: store) }
            if let warning = ParticipantRecomputer(record: record).missingZoneInputWarning(database: db) { Log.warning("warning: \(warning)") }
        }
        let counts = try store.outboxCounts()
        print("outbox: \(counts.pending) pending, \(counts.delivered) delivered, \(counts.dead) dead; forward them with `bracelet sync --db \(db) ...`")
        if damaged { throw ExitCode(3) }
    }

    /// The verified files of every capture, the zone a device without one in its participant
    /// record gets when no --tz is given (the recorded offset of the first capture with bracelet
    /// data) and whether any capture is damaged or incomplete.
    func loadCaptures() throws -> (files: [VerifiedFile], recordedZone: TimeZone?, damaged: Bool) {
        var files: [VerifiedFile] = []
        var recordedZone: TimeZone?
        var found = false
        var damaged = false
        for path in captures {
            let replayed = try loadCapture(path).capture
            if replayed.metricsFiles.isEmpty && replayed.beatsFiles.isEmpty {
                Log.warning("warning: \(path) holds no bracelet file transfer; skipped")
                continue
            }
            if replayed.isIncomplete {
                damaged = true
                Log.warning("warning: \(path) is damaged or incomplete; storing what was recovered (see bracelet replay \(path))")
            }
            if !found {
                found = true
                recordedZone = replayed.metricsFiles.last.flatMap { TimeZone(secondsFromGMT: $0.header.timeZoneOffsetMinutes * 60) }
            }
            files += VerifiedFile.files(of: replayed)
        }
        guard found else { throw CLIError("no capture held bracelet data; nothing stored", exitCode: 2) }
        return (files, recordedZone, damaged)
    }

    /// The vitality metrics a day left empty, in the words of `bracelet score`'s table: those whose
    /// inputs the bracelet did not record that day together, each that needs a setting with what to give.
    static func emptyVitalityLine(_ missing: [MissingField]) -> String {
        let unrecorded = missing.filter { $0.reason.hasSuffix(" is missing") }.map(\.field.label)
        var parts: [String] = []
        if !unrecorded.isEmpty { parts.append("not recorded that day, left empty (never 0): " + unrecorded.joined(separator: ", ")) }
        for field in missing where !field.reason.hasSuffix(" is missing") { parts.append("\(field.field.label) left empty: \(field.reason)") }
        return parts.joined(separator: "; ")
    }

    /// Removes a database file and the journal files SQLite keeps beside it.
    static func removeDatabaseFiles(_ path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
}
