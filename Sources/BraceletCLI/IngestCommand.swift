import ArgumentParser
import BraceletCapture
import BraceletStore
import BraceletSummaries
import BraceletVitality
import Foundation

/// `bracelet ingest`: store captures in the database and recompute the days they touch.
struct IngestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ingest",
        abstract: "Store captured sessions in the database and recompute the summaries of the days they touch.",
        discussion: """
            Slots and beats are stored idempotently by device and time: ingesting the same capture \
            twice adds nothing and writes no new outbox entry. Each changed daily summary or sleep \
            session writes an outbox entry in the same transaction; `bracelet sync` forwards them. \
            Vitality metrics (VitalityRawMetrics) are stored per day for `bracelet score --db`.

            Example:
              bracelet ingest captures/v2-three-days.btsnoop --db bracelet.db --tz America/New_York --age 35
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

    func run() throws {
        let store = try openStore(db, mustExist: false)
        var touched: [String: Set<String>] = [:]
        var configuration: SummaryConfiguration?
        var inserted = 0, present = 0, beatsInserted = 0
        for path in captures {
            let replayed = try loadCapture(path).capture
            if replayed.metricsFiles.isEmpty && replayed.beatsFiles.isEmpty {
                printError("warning: \(path) holds no bracelet file transfer; skipped")
                continue
            }
            if replayed.isIncomplete { printError("warning: \(path) is damaged or incomplete; storing what was recovered") }
            let config = try configuration ?? person.configuration(recordedOffsetSeconds: replayed.metricsFiles.last.map { $0.header.timeZoneOffsetMinutes * 60 })
            configuration = config
            for file in replayed.metricsFiles {
                let report = try storeCall { try store.insertSlots(file.slots, device: file.header.serial, model: file.header.model) }
                inserted += report.inserted
                present += report.alreadyPresent
                touched[file.header.serial, default: []].formUnion(report.touchedLocalDates(in: config.timeZone))
            }
            for file in replayed.beatsFiles {
                let report = try storeCall { try store.insertBeats(file.beats, device: file.header.serial, model: file.header.model) }
                beatsInserted += report.inserted
                touched[file.header.serial, default: []].formUnion(report.touchedLocalDates(in: config.timeZone))
            }
        }
        guard let configuration else { throw CLIError("no capture held bracelet data; nothing stored", exitCode: 2) }
        let recomputer = SummaryRecomputer(configuration: configuration, age: person.age)
        if let warning = recomputer.missingZoneInputWarning(database: db) { printError("warning: \(warning)") }
        print("stored \(inserted) new slots (\(present) already present) and \(beatsInserted) new beats in \(db)")
        for (device, dates) in touched.sorted(by: { $0.key < $1.key }) {
            let report = try storeCall { try recomputer.recompute(device: device, dates: Array(dates), store: store) }
            print("\(device): recomputed \(report.dates.count) days; \(report.changedSummaries) daily summaries and \(report.changedSleepSessions) sleep sessions changed (outbox entries written), vitality metrics changed on \(report.changedVitalityDays) days")
            for date in report.dates.sorted() {
                let missing = report.missingVitalityFields[date] ?? []
                if !missing.isEmpty { printError("note: \(device) \(date): vitality fields left empty: " + missing.map { "\($0)" }.joined(separator: "; ")) }
            }
        }
        let counts = try store.outboxCounts()
        print("outbox: \(counts.pending) pending, \(counts.delivered) delivered, \(counts.dead) dead; forward them with `bracelet sync --db \(db) ...`")
    }

    /// Runs a store call, turning its error into one line that says what to do.
    func storeCall<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as StoreError { throw CLIError("\(db): \(error)") }
    }
}
