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
        abstract: "Store captured sessions or CSV histories in the database and recompute the summaries of the days they touch.",
        discussion: """
            Each file is a capture (.btsnoop) or a CSV history: the rows that replay writes with \
            --format csv and that summarize reads with --csv (first column Unix ms, the others named \
            like the replay keys). A CSV's rows are stored as the device its device column names \
            (--device SERIAL when it has none); with no --tz, a new device's days run in UTC, as \
            summarize --csv cuts them. Either way the stored days are what summarize, score, export \
            and report read.

            Slots and beats are stored idempotently by device and time: ingesting the same capture \
            twice adds nothing and writes no new outbox entry. Each changed daily summary or sleep \
            session writes an outbox entry in the same transaction; `bracelet sync` forwards them. \
            Vitality metrics (VitalityRawMetrics) are stored per day for `bracelet score --db`.

            Exit status: 0 when everything was stored, 3 when a capture is damaged or a transfer is \
            incomplete (what was recovered is stored, as replay exits 3), 2 when no capture holds \
            bracelet data, 1 when a capture or the database cannot be used.

            Examples:
              bracelet ingest /usr/share/bracelet/captures/v2-three-days.btsnoop \\
                --db bracelet.db --tz America/New_York --age 35
              bracelet replay /usr/share/bracelet/captures/v1-day.btsnoop \\
                --format csv -o v1-day.csv
              bracelet ingest v1-day.csv --db bracelet.db --tz America/New_York
            """
    )

    @Argument(help: "One or more captures (.btsnoop) or CSV histories (.csv).")
    var captures: [String]

    @Option(help: "The database (created with mode 0600 when missing).")
    var db: String

    @Option(help: "With a CSV history without a device column: the bracelet serial its rows belong to.")
    var device: String?

    @Option(name: .customLong("interval-s"), help: "With a CSV history: seconds per row (default: the spacing of the rows).")
    var intervalSeconds: Int?

    @OptionGroup var person: PersonOptions

    func validate() throws {
        guard !captures.isEmpty else { throw ValidationError("name at least one capture") }
    }

    @OptionGroup var log: LogOptions

    @OptionGroup var progress: ProgressOptions

    func run() throws {
        let reporter = progress.reporter("ingest")
        defer { reporter.finish() }
        let existed = FileManager.default.fileExists(atPath: db)
        reporter.begin("opening \(db)")
        let store = try openStore(db, mustExist: false)
        // Each capture is streamed into the store a bounded piece at a time, each piece its own
        // transaction with the pending records of the days it touches, and the pending days are
        // recomputed a bounded number per transaction at the end: memory holds a window of the
        // capture, not the whole of it. A killed ingest leaves committed rows with their days
        // pending (the next ingest, listen or recompute recomputes them), or nothing; a repeated
        // capture finds its rows present and touches no day.
        var streamer = CaptureStreamer(store: store, given: person.given, database: db, onProgress: { reporter.update($0) })
        let histories = captures.filter(SampleInput.isCSV)
        if histories.isEmpty {
            // A setting given is never dropped silently.
            if device != nil { throw ValidationError("--device names the device of a CSV history's rows; no CSV file was given") }
            if intervalSeconds != nil { throw ValidationError("--interval-s is the row spacing of a CSV history; no CSV file was given") }
        }
        // Into a database without samples, the whole ingest is one load (Store.loading): its new
        // pages are written once, not through the write-ahead log and again at its checkpoints.
        var nothingStored = false
        let damaged: Bool, report: IngestReport
        do {
            (damaged, report) = try store.loading {
                var damaged = false
                do {
                    for path in captures {
                        if histories.contains(path) {
                            try streamer.storeCSV(path, serial: device, intervalSeconds: intervalSeconds)
                        } else if try streamer.storeCaptures([path]) {
                            damaged = true
                        }
                    }
                } catch {
                    nothingStored = !existed && (try? store.devices().isEmpty) == true
                    throw error
                }
                return (damaged, try participantCall(db) { try streamer.finish() })
            }
        } catch {
            // Nothing stored: the database this run created is removed again, so a failed ingest of a
            // file that is no capture leaves no empty database behind (one that existed is kept).
            if nothingStored { Self.removeDatabaseFiles(db) }
            throw error
        }
        reporter.finish()
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
