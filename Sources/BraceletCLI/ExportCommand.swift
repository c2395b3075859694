import ArgumentParser
import BraceletExport
import BraceletStore
import BraceletSummaries
import BraceletVitality
import Foundation

extension ExportFormat: ExpressibleByArgument {}
extension CSVExport.Table: ExpressibleByArgument {}

/// `bracelet export`: the stored summaries in a standard health format.
struct ExportCommand: ParsableCommand, LoggingCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write the stored summaries as Open mHealth, IEEE 1752, FHIR, ROOK or CSV.",
        discussion: """
            One document per run: a JSON array of data points (omh, ieee1752), one FHIR Bundle (fhir), \
            the ROOK file `bracelet score --rook` reads (rook), or one CSV table (csv, --table). Missing \
            values are left out (empty CSV cells), never written as 0. Times carry the UTC offset of the \
            zone of the device's participant record (`bracelet person show`), daylight saving included.

            Formats:
            \(ExportFormat.allCases.map { "  \($0.rawValue): \($0.summary)" }.joined(separator: "\n"))

            Examples:
              bracelet export --db bracelet.db --format fhir --user P-0042 -o bundle.json
              bracelet export --db bracelet.db --format csv --table sleep \\
                --from 2026-03-07 --to 2026-03-09
              bracelet export --db bracelet.db \\
                --format rook -o rook.json && bracelet score --rook rook.json --age 35
            """
    )

    @Option(help: "The database to read.")
    var db: String

    @Option(help: "First local day, YYYY-MM-DD (default: the first stored).")
    var from: String?

    @Option(help: "Last local day, YYYY-MM-DD (default: the last stored).")
    var to: String?

    @Option(help: "Device serial (default: the only one in the database).")
    var device: String?

    @Option(help: "Output format.")
    var format: ExportFormat

    @Option(name: [.short, .customLong("output")], help: "Write to this file instead of standard output.")
    var output: String?

    @Option(help: "Time zone of the times written (default: the participant record's).",
            transform: parseTimeZoneOption)
    var tz: TimeZone?

    @Option(help: "FHIR Patient id the observations are about (fhir only; default: the participant record's user id).")
    var user: String?

    @OptionGroup var userPolicy: UserIDPolicyOptions

    @Option(help: "CSV table: daily, sleep or slots (csv only).")
    var table: CSVExport.Table = .daily

    func validate() throws {
        try userPolicy.check(user, option: "--user")
        for (name, value) in [("--from", from), ("--to", to)] {
            if let value, !LocalDates.isValid(value) { throw ValidationError("\(name) \(value) is not a date written YYYY-MM-DD") }
        }
        if let from, let to, from > to { throw ValidationError("--from \(from) is after --to \(to)") }
        if user != nil && format != .fhir { throw ValidationError("--user applies to --format fhir only") }
    }

    @OptionGroup var log: LogOptions

    func run() throws {
        let (dataset, recordedUser) = try loadExportDataset(db: db, device: device, from: from, to: to, tz: tz)
        let data: Data
        do { data = try dataset.rendered(as: format, options: ExportOptions(user: user ?? recordedUser, table: table)) } catch let error as ExportError {
            throw CLIError("\(error)")
        }
        let out = try TextOutput(path: output)
        out.write(bytes: [UInt8](data))
        if format != .csv { out.write("\n") }
        try out.flush()
    }
}

/// Opens the database and reads one device's days for an export or report, in the zone of its
/// participant record (`tz`, when given, for this run only: a note says so when it disagrees).
/// Returns the record's user id too (the FHIR subject when no --user is given).
func loadExportDataset(db: String, device: String?, from: String?, to: String?, tz: TimeZone?) throws -> (dataset: ExportDataset, user: String?) {
    let store = try openStore(db, mustExist: true)
    let serial = try chooseDevice(store, path: db, requested: device)
    let record = try participantCall(db) { try ParticipantRecord.load(device: serial, from: store) }
    let (profile, overridden) = try participantCall(db) {
        try Participants.reading(ParticipantProfile(timeZone: tz), record: record, on: to ?? "9999-12-31")
    }
    for override in overridden { Log.info("note: " + override.note(database: db, device: serial)) }
    if tz == nil, let from, let to, record.text(.timeZone, on: from) != record.text(.timeZone, on: to) {
        Log.info("note: \(serial) changed time zone between \(from) and \(to); times carry the offsets of \(profile.timeZone.map(SummaryConfiguration.name(of:)) ?? "the stored days"), the zone on \(to)")
    }
    do {
        return (try ExportDataset.load(store: store, device: serial, from: from, to: to, timeZone: profile.timeZone), record.user)
    } catch let error as ExportError {
        throw CLIError("\(error)", exitCode: 2)
    } catch let error as StoreError {
        throw CLIError("\(db): \(error)")
    }
}
