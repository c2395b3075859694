import ArgumentParser
import BraceletExport
import BraceletStore
import BraceletSummaries
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
            zone the days were cut in: give --tz with the zone ingest used when it has daylight saving.

            Formats:
            \(ExportFormat.allCases.map { "  \($0.rawValue): \($0.summary)" }.joined(separator: "\n"))

            Examples:
              bracelet export --db bracelet.db --format fhir --user alice -o bundle.json
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

    @Option(help: "Time zone the days were cut in (the --tz given to ingest); default: the stored fixed offset.",
            transform: parseTimeZoneOption)
    var tz: TimeZone?

    @Option(help: "FHIR Patient id the observations are about (fhir only).")
    var user: String?

    @Option(help: "CSV table: daily, sleep or slots (csv only).")
    var table: CSVExport.Table = .daily

    func validate() throws {
        for (name, value) in [("--from", from), ("--to", to)] {
            if let value, !LocalDates.isValid(value) { throw ValidationError("\(name) \(value) is not a date written YYYY-MM-DD") }
        }
        if let from, let to, from > to { throw ValidationError("--from \(from) is after --to \(to)") }
        if user != nil && format != .fhir { throw ValidationError("--user applies to --format fhir only") }
    }

    @OptionGroup var log: LogOptions

    func run() throws {
        let dataset = try loadExportDataset(db: db, device: device, from: from, to: to, tz: tz)
        let data: Data
        do { data = try dataset.rendered(as: format, options: ExportOptions(user: user, table: table)) } catch let error as ExportError {
            throw CLIError("\(error)")
        }
        let out = try TextOutput(path: output)
        out.write(bytes: [UInt8](data))
        if format != .csv { out.write("\n") }
        try out.flush()
    }
}

/// Opens the database and reads one device's days for an export or report.
func loadExportDataset(db: String, device: String?, from: String?, to: String?, tz: TimeZone?) throws -> ExportDataset {
    let store = try openStore(db, mustExist: true)
    let serial = try chooseDevice(store, path: db, requested: device)
    do {
        return try ExportDataset.load(store: store, device: serial, from: from, to: to, timeZone: tz)
    } catch let error as ExportError {
        throw CLIError("\(error)", exitCode: 2)
    } catch let error as StoreError {
        throw CLIError("\(db): \(error)")
    }
}
