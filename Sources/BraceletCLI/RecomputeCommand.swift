import ArgumentParser
import BraceletStore
import BraceletVitality
import Foundation

/// `bracelet recompute`: recompute every stored day with the wearer's age (or max HR) given now.
struct RecomputeCommand: ParsableCommand, LoggingCommand {
    static let configuration = CommandConfiguration(
        commandName: "recompute",
        abstract: "Recompute the stored summaries, sleep sessions and vitality metrics of every stored day.",
        discussion: """
            Use it when the age, maximum heart rate or time zone was missing or wrong when the data \
            was stored: the samples are kept, so every day can be summarised again. Changed summaries \
            and sleep sessions are queued in the outbox like any other change.

            Example:
              bracelet recompute --db bracelet.db --age 35 --tz Europe/Amsterdam
            """
    )

    @Option(help: "The bracelet database.")
    var db: String

    @Option(help: "Only this device serial (default: every device in the database).")
    var device: String?

    @OptionGroup var person: PersonOptions

    @OptionGroup var log: LogOptions

    func run() throws {
        // Recomputing writes: the database must exist, but is opened for writing (and checked).
        guard FileManager.default.fileExists(atPath: db) else {
            throw CLIError("no database at \(db): create one with `bracelet ingest CAPTURE --db \(db)`")
        }
        let store = try openStore(db, mustExist: false)
        let devices = try device.map { [try chooseDevice(store, path: db, requested: $0)] } ?? store.devices().map(\.serial)
        guard !devices.isEmpty else { throw CLIError("\(db) holds no device yet; store data with bracelet ingest or listen first", exitCode: 2) }
        let recomputer = SummaryRecomputer(configuration: try person.configuration(recordedOffsetSeconds: nil), age: person.age)
        if let warning = recomputer.missingZoneInputWarning(database: db) { Log.warning("warning: \(warning)") }
        for serial in devices {
            let dates: [String]
            let report: RecomputeReport
            do {
                // Days a listen committed but ended before recomputing have no summary yet: included.
                let pending = try store.pendingRecompute().first { $0.device == serial }?.dates ?? []
                dates = Set(try store.summaryDates(device: serial) + pending).sorted()
                report = try store.transaction {
                    let report = try recomputer.recompute(device: serial, dates: dates, store: store)
                    try store.clearPendingRecompute(device: serial, dates: pending)
                    return report
                }
            } catch let error as StoreError {
                throw CLIError("\(db): \(error)")
            }
            print("\(serial): recomputed \(report.dates.count) of \(dates.count) stored days; \(report.changedSummaries) daily summaries "
                  + "and \(report.changedSleepSessions) sleep sessions changed (outbox entries written), vitality metrics changed on "
                  + "\(report.changedVitalityDays) days")
        }
    }
}
