import ArgumentParser
import BraceletDecoder
import BraceletExport
import BraceletFleet
import BraceletGateway
import BraceletStore
import BraceletVitality
import Foundation

/// `bracelet report --study`: the study page (or its CSV) from a gateway's database or the fleet.
struct StudyReportOptions: ParsableArguments {
    /// Output formats.
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case html, csv
    }

    @Flag(help: "Write the study page: every participant's days, wear time and gateway health (--db or the fleet database).")
    var study = false

    @Option(help: ArgumentHelp("With --study: the first day shown (default: 13 days before --to).", valueName: "YYYY-MM-DD"))
    var from: String?

    @Option(help: ArgumentHelp("With --study: the last day shown (default: today, in this machine's zone).", valueName: "YYYY-MM-DD"))
    var to: String?

    @Option(help: "With --study: html (the page) or csv (one line per participant and day).")
    var format: Format = .html

    @Option(help: ArgumentHelp("With --study --db: the gateway's --battery-low (default 15): battery_low stays open while the battery is at or below it.",
                               valueName: "percent"))
    var batteryLow: Int?

    @OptionGroup var fleet: FleetDatabaseOptions

    /// The longest page, days.
    static let maximumDays = 366

    /// Checks the study options against the day report's, which --study does not take; `days` is
    /// `--days`, the page's length with --study.
    func validate(db: String?, day: String?, device: String?, tz: TimeZone?, days: Int?) throws {
        for (given, option) in [(day != nil, "--day"), (device != nil, "--device"), (tz != nil, "--tz")] where given {
            throw ValidationError("\(option) is the day report's: --study shows every device, each day in its participant's own zone")
        }
        if db != nil, fleet.postgres != nil || fleet.postgresFile != nil {
            throw ValidationError("give --db PATH (a gateway's database) or the fleet database (--postgres-file PATH), not both")
        }
        for (text, option) in [(from, "--from"), (to, "--to")] {
            if let text, LocalDate(iso: text) == nil { throw ValidationError("\(option) \(text) is not a date written YYYY-MM-DD") }
        }
        if let days {
            guard from == nil else { throw ValidationError("give --from or --days (the days ending on --to), not both") }
            guard (1...Self.maximumDays).contains(days) else { throw ValidationError("--days must be 1-\(Self.maximumDays) with --study, not \(days)") }
        }
        if let batteryLow {
            guard (0...100).contains(batteryLow) else { throw ValidationError("--battery-low must be 0-100, not \(batteryLow)") }
            guard db != nil else {
                throw ValidationError("--battery-low goes with --db: from the fleet database the open events are as each gateway judged them "
                                      + "with its own --battery-low")
            }
        }
        if db == nil, fleet.postgres == nil, fleet.postgresFile == nil, ProcessInfo.processInfo.environment["BRACELET_POSTGRES_URL"] ?? "" == "" {
            throw ValidationError("say what to read: --db PATH (a gateway's database) or the fleet database "
                                  + "($BRACELET_POSTGRES_URL or --postgres-file PATH)")
        }
        let (first, last) = dates(today: Self.today(now: Int64(Date().timeIntervalSince1970)), days: days)
        guard first <= last else { throw ValidationError("--from \(first) is after --to \(last) (--to is today when not given)") }
        guard last.dayNumber - first.dayNumber < Self.maximumDays else {
            throw ValidationError("--from \(first) to --to \(last) is more than \(Self.maximumDays) days: choose a shorter range")
        }
    }

    /// Refuses the study options without --study (a setting given is never dropped).
    func refuseWithoutStudy() throws {
        for (given, option) in [(from != nil, "--from"), (to != nil, "--to"), (format != .html, "--format"),
                                (fleet.postgres != nil, "--postgres"), (fleet.postgresFile != nil, "--postgres-file"),
                                (batteryLow != nil, "--battery-low")] where given {
            throw ValidationError("\(option) goes with --study (the study page); the day report takes --db and --day")
        }
    }

    /// The first and last day of the page: --from and --to, by default the `days` (`--days`, else
    /// 14) ending `today`.
    func dates(today: LocalDate, days: Int?) -> (first: LocalDate, last: LocalDate) {
        let last = to.flatMap(LocalDate.init(iso:)) ?? today
        return (from.flatMap(LocalDate.init(iso:)) ?? last.adding(days: -((days ?? StudyPage.blockDays) - 1)), last)
    }

    /// Today's date in this machine's zone at `now` (Unix seconds).
    static func today(now: Int64) -> LocalDate {
        LocalDates.dates(ofUnixSeconds: [now], in: .current).first.flatMap(LocalDate.init(iso:)) ?? LocalDate(dayNumber: Int(now / 86_400))
    }

    /// Writes the page or the CSV of `days` (`--days`) to `output` (standard output when `nil`).
    func run(db: String?, output: String?, days: Int?) throws {
        let now = Int64(Date().timeIntervalSince1970)
        let (first, last) = dates(today: Self.today(now: now), days: days)
        let overview: StudyOverview
        if let db {
            let store = try openStore(db, mustExist: true)
            var thresholds = OperatorEvents.Thresholds()
            if let batteryLow { thresholds.batteryLowPercent = batteryLow }
            overview = try StudyOverview.gateway(store: store, from: first, to: last, now: now, source: "gateway database \(db)",
                                                 thresholds: thresholds)
        } else {
            let server = try fleet.server()
            let reader = try fleetCall { try FleetReader(server: server) }
            overview = try fleetCall { try reader.studyOverview(from: first, to: last, now: now, source: "fleet database \(server)") }
        }
        let out = try TextOutput(path: output)
        if format == .csv { StudyCSV.write(overview, to: out.write) } else { StudyPage(overview: overview).write(to: out.write) }
        try out.flush()
    }
}
