import ArgumentParser
import BraceletDecoder
import BraceletExport
import BraceletStore
import Foundation

/// `bracelet report`: one day (and its week) as a self-contained HTML page.
struct ReportCommand: ParsableCommand, LoggingCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Write a day (and its week) as one self-contained HTML page that prints on A4.",
        discussion: """
            The page has no script and loads nothing from the network: the night's hypnogram, heart \
            rate over the zones with gaps where the bracelet was not worn, zone minutes, steps per \
            hour, breath rate, skin and core temperature, SpO2 and skin conductance (V2), each with \
            its unit and a legend. Below them the week: each of the --days days (default 7) ending on \
            --day that the database holds, with the time recorded (a partial or ongoing day is marked \
            and not scored) and the 7-day vitality score with its pillars; --days 1 leaves it out. \
            Times are local, in the zone the days were cut in.

            Example:
              bracelet report --db bracelet.db --day 2026-06-17 \\
                --tz America/New_York -o day.html

            With --study the page is the whole study's instead, from a gateway's database (--db) or \
            the fleet database (--postgres-file or $BRACELET_POSTGRES_URL; a reader role is enough): \
            a row per participant device, a cell per local day from --from to --to (default the last \
            14 days; --days N: the N days ending on --to) with the minutes worn and recorded, and per row last heard, last sync, battery, \
            open operator events (battery_low by --battery-low, the gateway's own setting), backlog and \
            whether the last 7 days score. A4 landscape; \
            --format csv writes the same numbers one line per participant and day.

              bracelet report --study --db /var/lib/bracelet/bracelet.db -o study.html
            """
    )

    @Option(help: "The database to read.")
    var db: String?

    @Option(help: "The day to report, YYYY-MM-DD.")
    var day: String?

    @Option(help: "Device serial (default: the only one in the database).")
    var device: String?

    @Option(help: "Days in the week view, ending on --day (1 = the day alone; default 7). With --study: the days of the page, ending on --to (default 14).")
    var days: Int?

    @Option(help: "Time zone of the times shown (default: the participant record's).",
            transform: parseTimeZoneOption)
    var tz: TimeZone?

    @Option(name: [.short, .customLong("output")], help: "The file to write, HTML (or with --study --format csv, CSV; default: standard output).")
    var output: String?

    @OptionGroup(title: "The study page (--study)") var study: StudyReportOptions

    func validate() throws {
        if study.study { return try study.validate(db: db, day: day, device: device, tz: tz, days: days) }
        try study.refuseWithoutStudy()
        guard db != nil, let day else { throw ValidationError("give --db PATH and --day YYYY-MM-DD (or --study for the study page)") }
        guard LocalDates.isValid(day) else { throw ValidationError("--day \(day) is not a date written YYYY-MM-DD") }
        if let days, !(1...31).contains(days) { throw ValidationError("--days must be 1-31, not \(days)") }
    }

    @OptionGroup var log: LogOptions

    func run() throws {
        if study.study { return try study.run(db: db, output: output, days: days) }
        let days = days ?? 7
        guard let db, let day else { throw ValidationError("give --db PATH and --day YYYY-MM-DD (or --study for the study page)") }
        let first = LocalDate(iso: day)?.adding(days: -(days - 1)).description ?? day
        let (dataset, _) = try loadExportDataset(db: db, device: device, from: first, to: day, tz: tz)
        var scores: [WeekScore] = []
        if days > 1 {
            let store = try openStore(db, mustExist: true)
            scores = try WeekScore.load(store: store, device: dataset.device, dates: dataset.days.map(\.summary.date))
        }
        let html: String
        do { html = try DayReport(dataset: dataset, date: day, scores: scores).html() } catch { throw CLIError("\(error)", exitCode: 2) }
        let out = try TextOutput(path: output)
        out.write(html)
        try out.flush()
    }
}
