import ArgumentParser
import BraceletIngest
import BraceletStore
import BraceletVitality
import Foundation

/// `bracelet recompute`: recompute every stored day with the wearer's age (or max HR) given now.
struct RecomputeCommand: ParsableCommand, LoggingCommand {
    static let configuration = CommandConfiguration(
        commandName: "recompute",
        abstract: "Recompute the stored summaries, sleep sessions and vitality metrics of every stored day.",
        discussion: """
            Every day is computed with the settings the device's participant record holds on it \
            (`bracelet person show`). A flag the record does not know yet (an age never given) is \
            stored in it; a flag that disagrees with it is refused: change the record with \
            `bracelet person set`, which recomputes the days that change. Changed summaries and sleep \
            sessions are queued in the outbox like any other change; unchanged ones are not.

            Example:
              bracelet recompute --db bracelet.db --age 35
            """
    )

    @Option(help: "The bracelet database.")
    var db: String

    @Option(help: "Only this device serial (default: every device in the database).")
    var device: String?

    @OptionGroup var person: PersonOptions

    @OptionGroup var log: LogOptions

    @OptionGroup var progress: ProgressOptions

    func run() throws {
        // Recomputing writes: the database must exist, but is opened for writing (and checked).
        guard try databaseExists(db) else {
            throw CLIError("no database at \(db): \(DatabaseFiller.deviceData.advice(db))")
        }
        // The progress is cleared before each device's result line (standard output) and begun anew.
        var reporter = progress.reporter("recompute")
        defer { reporter.finish() }
        reporter.begin("opening \(db)")
        let store = try openStore(db, mustExist: false)
        let devices = try device.map { [try chooseDevice(store, path: db, requested: $0)] } ?? store.devices().map(\.serial)
        guard !devices.isEmpty else { throw CLIError("\(db) holds no device yet: \(DatabaseFiller.deviceData.advice(db))", exitCode: 2) }
        for serial in devices {
            // The flags complete the participant record (a setting it does not know yet) and never
            // contradict it: cutting days another way is `bracelet person set`. Every stored day is
            // recorded as pending with it, then recomputed a bounded number of days per transaction
            // (a year of changed summaries in one transaction kept all their pages in memory); a
            // run ended in between leaves the rest pending for the next recompute, ingest or listen.
            let (record, dates) = try participantCall(db) {
                try store.transaction {
                    let (record, filled) = try Participants.reconcile(person.given, device: serial, store: store)
                    if let filled { for line in describe(filled, device: serial) { print(line) } }
                    // Days a listen committed but ended before recomputing have no summary yet: included.
                    let pending = try store.pendingRecompute().first { $0.device == serial }?.dates ?? []
                    let dates = Set(try store.summaryDates(device: serial) + pending).sorted()
                    try store.markForRecompute(device: serial, dates: dates)
                    return (record, dates)
                }
            }
            let shown = reporter
            let recomputed = try participantCall(db) {
                try IngestPipeline(store: store, given: person.given, onProgress: { shown.update($0) }).recomputePending()
            }
            reporter.finish()
            reporter = progress.reporter("recompute")
            // Other devices' days left pending by an ended listen are recomputed too; reported here.
            let report = recomputed.recomputed.first { $0.device == serial }?.report ?? RecomputeReport()
            if let warning = ParticipantRecomputer(record: record).missingZoneInputWarning(database: db) { Log.warning("warning: \(warning)") }
            print("\(serial): recomputed \(report.dates.count) of \(dates.count) stored days; \(report.changedSummaries) daily summaries "
                  + "and \(report.changedSleepSessions) sleep sessions changed (outbox entries written), vitality metrics changed on "
                  + "\(report.changedVitalityDays) days")
        }
    }
}
