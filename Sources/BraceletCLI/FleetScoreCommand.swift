import ArgumentParser
import BraceletDecoder
import BraceletFleet
import BraceletProtocol
import BraceletVitality
import Foundation

/// `bracelet fleet score`: every device of the fleet database scored in one process, the scores
/// stored in `fleet_scores` and printed.
struct FleetScoreCommand: ParsableCommand, LoggingCommand {
    static let configuration = CommandConfiguration(
        commandName: "score",
        abstract: "Score every device of the fleet database, as score --postgres --device scores one, and store the scores in fleet_scores.",
        discussion: """
            Each device gets the vitality score that score --postgres --device SERIAL --age N gives \
            it with the same options: the same days, rules and numbers. N is the device's age in \
            --ages (a line for its serial, else for its participant), else --age; a device with neither \
            is not scored. The scores are stored in the table fleet_scores (one row per device, window \
            length and last day; a window that lacked data is stored with the reason and no score) \
            when every device is done, and printed: --format json prints a list of {device, user, \
            age, window, scores, warnings, error}, where scores is the object that score --format \
            json prints (null for a device without a score, and error says why); --format table \
            prints one tab-separated line per device. Run it with a scorer's URL (made with \
            fleet add-scorer NAME) or the owner's; readers query fleet_scores. Devices are read in \
            batches and scored on every core.
            Exit status: 0 when every device was handled (some may have no score: see their error), \
            2 when the fleet database holds no device, 1 on any other failure (nothing is stored).
            """
    )

    @OptionGroup var database: FleetDatabaseOptions

    @Option(name: .long, help: "Age in whole years (18-120) of every device not in --ages; selects the reference ranges.")
    var age: Int?

    @Option(name: .long, help: ArgumentHelp("Ages by device or participant: SUBJECT,AGE lines (a serial or participant id; # comments).",
                                            valueName: "file"))
    var ages: String?

    @OptionGroup var window: ScoreWindowOptions

    @Option(name: .long, help: "Output format: table or json.")
    var format: ScoreCommand.Format = .table

    @OptionGroup var log: LogOptions

    func validate() throws {
        // Checked once here rather than failing the same way for every device.
        guard age != nil || ages != nil else {
            throw ValidationError("give --age N (every device) or --ages FILE (by device or participant), or both: the fleet database holds no ages")
        }
        if let age, !ReferenceRanges.supportedAges.contains(age) { throw ValidationError("--age \(age) is outside 18-120") }
        // The window's length and minimum days: ScoreWindowOptions.validate(), as for score.
    }

    func run() throws {
        let ages = try scoringAges()
        let server = try database.server()
        let scorer = try fleetCall { try FleetScorer(server: server) }
        let output = try TextOutput(path: nil)
        let printer = FleetScorePrinter(format: format, windowDays: window.days, output: output)
        let summary = try fleetCall { try scorer.scoreAll(ages: ages, builder: window.builder, each: printer.print) }
        guard summary.devices > 0 else { throw CLIError("the fleet database holds no devices: nothing was scored", exitCode: 2) }
        printer.finish()
        try output.flush()
        Log.info("fleet score: \(summary.devices) devices, \(summary.scored) scored, \(summary.devices - summary.scored) without a score "
                 + "(each with its reason); \(summary.stored) rows stored in fleet_scores")
    }
}

extension FleetScoreCommand {
    /// `--age` for every device and the ages of `--ages` by device or participant.
    func scoringAges() throws -> FleetScoreAges {
        guard let ages else { return FleetScoreAges(default: age) }
        let bytes: [UInt8]
        do { bytes = try InputFile.read(path: ages, what: "--ages file", limit: 64 << 20) } catch { throw CLIError("\(error)") }
        return FleetScoreAges(default: age, bySubject: try fleetCall { try FleetScoreAges.parse(String(decoding: bytes, as: UTF8.self), what: ages) })
    }
}

/// Prints each device's result as it comes: one JSON list laid out as `score --format json` lays
/// out its report, or one table line per device.
final class FleetScorePrinter {
    private let format: ScoreCommand.Format
    private let windowDays: Int
    private let output: TextOutput
    private let writer: CanonicalJSON.PrettyWriter
    private var count = 0

    init(format: ScoreCommand.Format, windowDays: Int, output: TextOutput) {
        self.format = format
        self.windowDays = windowDays
        self.output = output
        writer = CanonicalJSON.PrettyWriter(blockSize: 1 << 16) { output.write(raw: $0) }
    }

    /// Prints one device (the header or the list's opening first).
    func print(_ score: FleetScore) {
        defer { count += 1 }
        if format == .json {
            writer.write(Array((count == 0 ? "[" : ",").utf8))
            writer.write(score.json(windowDays: windowDays))
            return
        }
        if count == 0 { output.write("device\tuser\tstart\tend\ttotal\tsleep\tmovement\tstress_recovery\tnote\n") }
        let number = { (value: Double?) in value.map { String($0) } ?? "-" }
        output.write([score.device, score.user ?? "-", score.window?.start.description ?? "-", score.window?.end.description ?? "-",
                      number(score.total), number(score.score(of: .sleep)), number(score.score(of: .movement)),
                      number(score.score(of: .stressRecovery)), score.error ?? (score.warnings.isEmpty ? "-" : score.warnings.joined(separator: "; "))]
            .joined(separator: "\t") + "\n")
    }

    /// Closes the list (JSON); nothing for a table.
    func finish() {
        guard format == .json, count > 0 else { return }
        writer.write(Array("]".utf8))
        writer.finish()
        output.write("\n")
    }
}
