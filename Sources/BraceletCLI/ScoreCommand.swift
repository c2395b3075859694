import ArgumentParser
import BraceletDecoder
import BraceletProtocol
import Foundation
import BraceletStore
import BraceletVitality

/// `bracelet score`: average the last 7-30 days of vitality metrics and score them.
struct ScoreCommand: ParsableCommand, LoggingCommand {
    static let configuration = CommandConfiguration(
        commandName: "score",
        abstract: "Average 7-30 days of vitality metrics, report coverage and score sleep, movement and stress/recovery.",
        discussion: """
            Reads days from a ROOK JSON file (--rook) or from the bracelet database (--db; the age \
            is the participant record's unless --age is given, and days computed for another age \
            are named). Only \
            complete bracelet days are used (over in their own time zone, at least 90 % of the minutes \
            recorded); the days left out are listed. The window ends at --end or at the latest complete \
            day with data. Each metric is averaged over the days that have it; a metric no day has is \
            excluded from scoring, never counted as 0. The window needs sleep, steps, and HRV or resting \
            heart rate on at least --min-days days (default: half the window); a lower --min-days \
            scores with a warning.
            ROOK file shape: {"days": [{"date": "2026-01-05", "sleep_summary": {...}, \
            "physical_summary": {...}, "activity_events": [...], "coverage": {...}}]}. Each key may be \
            written in ROOK's snake_case, in its camelCase (sleepDurationSecondsInt) or with the ROOK \
            SDK's field name (sleepDurationSeconds); the SDK models' other fields are accepted and not \
            read; any other key is an error naming the nearest accepted spelling. A 0 in any ROOK field \
            means "not measured". A day with "coverage" (bracelet export writes it) is complete by the \
            rule above, as with --db; a day without it is taken as complete. Keys read \
            (key/SDK name; * read, not scored):

            """ + ROOKInputFile.keysRead
    )

    /// Output formats.
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case table, json
    }

    @Option(name: .long, help: "Bracelet database to read daily vitality metrics from.")
    var db: String?

    @Option(name: .long, help: "With --db: the device serial (default: the only one); with --postgres: the device to score.")
    var device: String?

    @Option(name: .long, help: ArgumentHelp("Read the delivered summaries from this PostgreSQL fleet database.", valueName: "url"))
    var postgres: String?

    @Option(name: .long, help: ArgumentHelp("Read the --postgres URL from this file (mode 0600 or stricter).", valueName: "path"))
    var postgresFile: String?

    @Option(name: .long, help: ArgumentHelp("With --postgres: score this study participant's days.", valueName: "id"))
    var user: String?

    @Option(name: .long, help: "ROOK JSON file with one entry per day.")
    var rook: String?

    @Option(name: .long, help: "Age in whole years (18-120); selects the reference ranges. With --db: default the participant record's.")
    var age: Int?

    @OptionGroup var window: ScoreWindowOptions

    @Option(name: .long, help: "Output format: table or json.")
    var format: Format = .table

    func validate() throws {
        if [db, rook, postgres ?? postgresFile].compactMap({ $0 }).count != 1 {
            throw ValidationError("give exactly one of --db PATH, --rook FILE.json or --postgres URL")
        }
        if user != nil && ((postgres ?? postgresFile) == nil || device != nil) { throw ValidationError("--user goes with --postgres, instead of --device") }
        if age == nil && db == nil { throw ValidationError("--age N is needed with --rook and --postgres (with --db the participant record gives it)") }
    }

    @OptionGroup var log: LogOptions

    func run() throws {
        let builder = window.builder
        let report: ScoreReport
        if postgres != nil || postgresFile != nil {
            let (days, source) = try fleetDays()
            report = try ScoreReport.make(days: days, age: try requiredAge(), builder: builder, source: source)
        } else if let rook {
            let file: ROOKInputFile
            let bytes: [UInt8]
            do { bytes = try InputFile.read(path: rook, what: "ROOK JSON file", limit: InputFile.exportLimit) } catch { throw CLIError("\(error)") }
            do { file = try ROOKInputFile.decode(Data(bytes)) } catch { throw ScoreReportError.input(error) }
            for warning in file.warnings { Log.warning("warning: \(rook): \(warning)") }
            report = try ScoreReport.make(rook: file, age: try requiredAge(), builder: builder, source: "rook:\(rook)")
        } else {
            let path = db ?? ""
            let store = try openStore(path, mustExist: true)
            let serial = try chooseDevice(store, path: path, requested: device)
            do { try store.requireIntactContent(of: "vitality_metrics") } catch { throw CLIError("\(error)") }
            let age = try scoringAge(store, device: serial, database: path)
            let days: [DatedVitalityMetrics]
            do { days = try StoredVitalityMetrics.days(in: store, device: serial, age: age) } catch let error as StoredVitalityMetricsError {
                throw CLIError("\(path): \(error)")
            }
            guard !days.isEmpty else {
                throw CLIError("\(path) holds no vitality metrics for \(serial); run bracelet ingest first", exitCode: 2)
            }
            // Movement minutes were counted with the zones of the age each day was computed with:
            // scoring with another age says so instead of mixing the two silently.
            let other = days.filter { $0.metrics.age != age }
            if !other.isEmpty {
                let ages = Set(other.map(\.metrics.age)).sorted().map(String.init).joined(separator: ", ")
                Log.info("note: \(other.count) of \(days.count) stored days were computed for age \(ages) (their movement minutes count "
                           + "that age's heart-rate zones); scoring uses the reference ranges of age \(age). To recompute them for age \(age): "
                           + "`bracelet person set --db \(path) --device \(serial) --age \(age)`")
            }
            report = try ScoreReport.make(days: days, age: age, builder: builder, source: "db:\(path) device \(serial)")
        }
        for warning in report.window.warnings { Log.warning("warning: \(warning)") }
        print(format == .json ? report.json() : report.table())
    }
}

extension ScoreCommand {
    /// The age to score with from the database: --age (a note when it disagrees with the
    /// participant record), else the record's.
    func scoringAge(_ store: Store, device: String, database: String) throws -> Int {
        let record = try participantCall(database) { try ParticipantRecord.load(device: device, from: store) }
        let (profile, overridden) = try participantCall(database) { try Participants.reading(ParticipantProfile(age: age), record: record) }
        for override in overridden { Log.info("note: " + override.note(database: database, device: device)) }
        guard let scoring = profile.age else {
            throw CLIError("the participant record of \(device) has no age: give --age N, or store it with "
                           + "`bracelet person set --db \(database) --device \(device) --age N`")
        }
        return scoring
    }
}

extension ScoreCommand {
    /// --age, which --rook and --postgres need (``validate()`` refuses them without it).
    func requiredAge() throws -> Int {
        guard let age else { throw CLIError("--age N is needed with --rook and --postgres") }
        return age
    }
}
