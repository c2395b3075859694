import ArgumentParser
import BraceletDecoder
import Foundation
import Testing
@testable import BraceletCLI

@Suite struct StudyReportOptionsTests {
    /// What `report` says to `arguments` it refuses.
    func refusal(_ arguments: [String]) -> String? {
        do { _ = try ReportCommand.parse(arguments) } catch { return ReportCommand.message(for: error) }
        return nil
    }

    /// An option given is never dropped: the day report's with --study, the study page's without,
    /// and a page that would read nothing or run backwards is refused with what to do.
    @Test func optionsOfTheOtherReportAreRefused() {
        #expect(refusal(["--study", "--db", "g.db", "--day", "2026-06-17"])?.contains("--day is the day report's") == true)
        #expect(refusal(["--study", "--db", "g.db", "--tz", "UTC"])?.contains("--tz is the day report's") == true)
        #expect(refusal(["--db", "g.db", "--day", "2026-06-17", "--from", "2026-06-01"])?.contains("--from goes with --study") == true)
        #expect(refusal(["--db", "g.db", "--day", "2026-06-17", "--format", "csv"])?.contains("--format goes with --study") == true)
        #expect(refusal(["--db", "g.db"])?.contains("give --db PATH and --day") == true)
        #expect(refusal(["--study", "--db", "g.db", "--from", "2026-06-10", "--to", "2026-06-01"])?.contains("is after --to") == true)
        #expect(refusal(["--study", "--db", "g.db", "--from", "2025-01-01", "--to", "2026-06-01"])?.contains("more than 366 days") == true)
        #expect(refusal(["--study", "--db", "g.db", "--to", "2026-02-30"])?.contains("--to 2026-02-30 is not a date") == true)
        #expect(refusal(["--study", "--db", "g.db", "--postgres-file", "f"])?.contains("not both") == true)
        if ProcessInfo.processInfo.environment["BRACELET_POSTGRES_URL"] == nil {
            #expect(refusal(["--study"])?.contains("say what to read: --db PATH") == true)
        }
        #expect(refusal(["--study", "--db", "g.db", "--from", "2026-06-01", "--to", "2026-06-14", "--format", "csv"]) == nil)
        #expect(refusal(["--db", "g.db", "--day", "2026-06-17", "--battery-low", "10"])?.contains("--battery-low goes with --study") == true)
        #expect(refusal(["--study", "--db", "g.db", "--battery-low", "101"])?.contains("--battery-low must be 0-100") == true)
        #expect(refusal(["--study", "--postgres-file", "f", "--battery-low", "10"])?.contains("--battery-low goes with --db") == true)
        #expect(refusal(["--db", "g.db", "--day", "2026-06-17", "--days", "32"])?.contains("--days must be 1-31") == true)
    }

    /// With --study, --days is the page's length ending on --to; with --from as well it is refused,
    /// and beyond the longest page too: never ignored.
    @Test func daysIsTheStudyPagesLength() throws {
        let to = try #require(LocalDate(iso: "2026-06-14"))
        let command = try ReportCommand.parse(["--study", "--db", "g.db", "--to", "2026-06-14", "--days", "3"])
        #expect(command.study.dates(today: to, days: command.days) == (try #require(LocalDate(iso: "2026-06-12")), to))
        #expect(command.study.dates(today: to, days: nil).first == to.adding(days: -13), "14 days by default")
        #expect(refusal(["--study", "--db", "g.db", "--from", "2026-06-01", "--days", "3"])?.contains("give --from or --days") == true)
        #expect(refusal(["--study", "--db", "g.db", "--days", "367"])?.contains("--days must be 1-366 with --study") == true)
        #expect(refusal(["--study", "--db", "g.db", "--days", "0"])?.contains("--days must be 1-366 with --study") == true)
    }

    /// A password on the command line is refused before anything connects: every user of the host
    /// could read it. The message names where it belongs and never repeats it.
    @Test func aPasswordOnTheCommandLineIsRefused() throws {
        let command = try ReportCommand.parse(["--study", "--postgres", "postgresql://rd:s3cret@db.example.org/fleet", "--to", "2026-06-14"])
        let error = #expect(throws: CLIError.self) { try command.run() }
        #expect(error?.description.contains("$BRACELET_POSTGRES_URL or --postgres-file") == true)
        #expect(error?.description.contains("s3cret") == false)
    }
}
