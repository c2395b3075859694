import ArgumentParser
import BraceletDecoder
import BraceletIngest
import BraceletStore
import BraceletSummaries
import BraceletVitality
import Foundation

/// `bracelet summarize`: daily summaries and sleep sessions.
struct SummarizeCommand: ParsableCommand, LoggingCommand {
    static let configuration = CommandConfiguration(
        commandName: "summarize",
        abstract: "Daily summaries (heart-rate zones, breath, steps, temperatures, SpO2, EDA) and sleep sessions.",
        discussion: """
            Input is a capture, a CSV export (--csv) or the database (--db). A day runs from 00:00 to \
            24:00 in --tz (23 or 25 hours on a daylight-saving day). The definitions are in \
            Sources/BraceletSummaries/BraceletSummaries.docc/Definitions.md.

            Examples:
              bracelet summarize /usr/share/bracelet/captures/v2-three-days.btsnoop \\
                --tz America/New_York --age 35
              bracelet summarize --csv export.csv --tz Europe/Amsterdam --format table
              bracelet summarize --db bracelet.db --day 2026-06-17
            """
    )

    @Argument(help: "A capture to summarise (.btsnoop).")
    var capture: String?

    @Option(help: "A CSV file: first column Unix ms, then columns named like the replay keys.")
    var csv: String?

    @Option(help: "The bracelet database.")
    var db: String?

    @Option(help: "With --db: the device serial (default: the only one); with --postgres: the device.")
    var device: String?

    @Option(help: "A PostgreSQL fleet database: print the summaries delivered for --device.")
    var postgres: String?

    @Option(help: "Read the --postgres URL from this file (mode 0600 or stricter).")
    var postgresFile: String?

    @Option(name: .customLong("interval-s"), help: "With --csv: seconds per row (default: the spacing of the rows).")
    var intervalSeconds: Int?

    @Option(help: "Only this local day, YYYY-MM-DD.")
    var day: String?

    @OptionGroup var person: PersonOptions

    @Option(help: "Output format: json or table.")
    var format: SummaryFormat = .json

    func validate() throws {
        let inputs = [capture, csv, db, postgres ?? postgresFile].compactMap { $0 }
        guard inputs.count == 1 else { throw ValidationError("give exactly one input: CAPTURE, --csv FILE, --db PATH or --postgres URL") }
    }

    @OptionGroup var log: LogOptions

    func run() throws {
        if postgres != nil || postgresFile != nil { return try write(fleetDocument()) }
        // A database's settings are the device's participant record (each flag given replacing
        // its setting for this run): known before anything is read.
        // Opened once: an open checks the file's schema and pages.
        let database = try db.map { path in
            let store = try openStore(path, mustExist: true)
            let serial = try chooseDevice(store, path: path, requested: device)
            let configuration = try participantCall(path) { try person.reading(store, device: serial, database: path).configuration(device: serial) }
            return (path: path, store: store, serial: serial, configuration: configuration)
        }
        let databaseConfiguration = database?.configuration
        if let database, let stored = try storedDocument(database.path, store: database.store, serial: database.serial,
                                                        configuration: database.configuration) {
            switch format {
            case .json:
                // Laid out a block at a time straight from the stored rows: no copy of the document.
                let output = try DayByDayOutput(format: .json, timeZone: stored.timeZone, date: nil)
                do {
                    try output.addStored(stored)
                } catch {
                    throw CLIError("cannot read the stored summaries of \(database.serial) in \(database.path): \(error)")
                }
                try output.finish()
            case .table:
                print(SummaryTableRenderer.render(try stored.decoded()))
            }
            return
        }
        if let capture {
            if try DayByDayCaptureSummary.summarize(capture: capture, command: self) { return }
            Log.info("note: the records of \(capture) are not in time order (one comes more than an hour after a later one); summarising it in memory, which grows with the capture")
        }
        let input = try loadSamples()
        for note in input.notes { logNote(note) }
        let configuration = try databaseConfiguration ?? person.configuration(recordedOffsetSeconds: input.recordedOffsetSeconds)
        let (document, diagnostics) = SummaryEngine.summarize(slots: input.slots, beats: input.beats, configuration: configuration,
                                                              date: day, sourceOffsetSeconds: input.recordedOffsetSeconds)
        for diagnostic in diagnostics.prefix(20) { Log.info("note: \(diagnostic)") }
        if diagnostics.count > 20 { Log.info("note: \(diagnostics.count - 20) more diagnostics not shown") }
        if let day, document.days.isEmpty { throw CLIError("no data on \(day) in \(input.source)", exitCode: 2) }
        try write(document)
    }

    /// With --db: the summaries `ingest`/`listen`/`recompute` stored, when they were computed with
    /// these settings (no raw row is read); nil, after a note saying why, when the raw rows must be
    /// summarised instead.
    func storedDocument(_ path: String, store: Store, serial: String, configuration: SummaryConfiguration) throws -> StoredSummaryDocument? {
        let stored: Result<StoredSummaryDocument, StoredSummariesUnavailable>
        do {
            // No flag: each day with the settings the participant record holds on it (older days
            // keep theirs after a move or a birthday). Flags: every day with the settings of this run.
            if person.given.isEmpty {
                let record = try ParticipantRecord.load(device: serial, from: store)
                stored = try StoredSummaryDocument.load(from: store, record: record, date: day)
            } else {
                stored = try StoredSummaryDocument.load(from: store, device: serial, configuration: configuration, date: day)
            }
        } catch let error as ParticipantError {
            throw CLIError(error.description(database: path))
        } catch {
            throw CLIError("cannot read the stored summaries of \(serial) in \(path): \(error)")
        }
        switch stored {
        case let .success(document):
            return document
        case let .failure(reason):
            Log.info("note: \(reason); summarising the raw rows instead (`bracelet person set --db \(path) --device \(serial)` with these options stores summaries that are read directly)")
            return nil
        }
    }

    /// Prints `document` in the chosen format.
    func write(_ document: SummaryDocument) throws {
        switch format {
        case .json:
            let data = try document.jsonData(prettyPrinted: true)
            FileHandle.standardOutput.write(data)
            print()
        case .table:
            print(SummaryTableRenderer.render(document))
        }
    }

    func loadSamples() throws -> SampleInput {
        if let capture { return try .capture(capture) }
        if let csv { return try .csv(csv, intervalSeconds: intervalSeconds) }
        return try SampleInput.database(db ?? "", device: device).0
    }
}

/// Output formats of the summary commands.
enum SummaryFormat: String, ExpressibleByArgument, CaseIterable {
    case json, table
}

/// `bracelet hrv`: heart-rate variability over all beats of the input.
struct HRVCommand: ParsableCommand, LoggingCommand {
    static let configuration = CommandConfiguration(
        commandName: "hrv",
        abstract: "Heart-rate variability (mean NN, SDNN, RMSSD, pNN50, mean HR) from beat-to-beat intervals.",
        discussion: """
            Keeps intervals of 300-2000 ms; with --filter malik20 (default) also drops a beat more than \
            20 % away from the previous kept one. Never differences across a gap. A CSV's rr_ms may have \
            fractions (Empatica E4 times beats in 1/64-s steps: 562.5), rounded to the millisecond. JSON \
            keys: mean_nn_ms, sdnn_ms, rmssd_ms, pnn50, mean_hr (null when there are too few beats), kept, \
            dropped (every interval of the input not used) and dropped_by (why: unreadable, same_time, \
            out_of_range, artefact).
            """
    )

    @Argument(help: "A capture with a beats (RR) file.")
    var capture: String?

    @Option(help: "A CSV file with an rr_ms column (one beat per row).")
    var csv: String?

    @Option(help: "Beat filter: malik20 or none.")
    var filter: HRVFilter = .malik20

    @Option(help: "Output format: json or table.")
    var format: SummaryFormat = .json

    func validate() throws {
        guard (capture == nil) != (csv == nil) else { throw ValidationError("give exactly one input: CAPTURE or --csv FILE") }
    }

    @OptionGroup var log: LogOptions

    func run() throws {
        let input = try capture.map { try SampleInput.capture($0) } ?? SampleInput.csv(csv ?? "", intervalSeconds: nil)
        for note in input.notes { logNote(note) }
        guard !input.beats.isEmpty else { throw CLIError("\(input.source) holds no beat-to-beat intervals", exitCode: 2) }
        let result = HRVAnalysis.analyze(input.beats, filter: filter, unreadable: input.unreadableIntervals)
        switch format {
        case .json:
            print(String(decoding: try CanonicalJSON.bytes(of: result, what: "the HRV result"), as: UTF8.self))
        case .table:
            print(SummaryTableRenderer.render(result))
        }
    }
}

extension HRVFilter: ExpressibleByArgument {}
extension HRMaxFormula: ExpressibleByArgument {}
