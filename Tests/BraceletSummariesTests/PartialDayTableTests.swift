import BraceletDecoder
import Foundation
import Testing
@testable import BraceletSummaries

/// The summarize table marks a day that is not whole, by the rule `score` applies
/// (`DayCoverage.status(at:)`): a first day with 423 of its 1440 minutes recorded is partial, a day
/// not over yet is ongoing, and neither says 24 hours.
@Suite struct PartialDayTableTests {
    /// Heart-rate slots every minute over [from, to).
    func minutes(from: Int64, to: Int64) -> [Slot] {
        stride(from: from, to: to, by: 60).map { slot($0, bpm: 62) }
    }

    /// The cells of the row of `date` in `table`.
    func cells(_ table: String, _ date: String) -> [String] {
        table.split(separator: "\n").first { $0.hasPrefix(date) }.map { $0.split(separator: " ").map(String.init) } ?? []
    }

    @Test func aFirstDayOf423MinutesIsPartialAndTodayIsOngoing() throws {
        // 2026-01-15 from 16:57 (423 minutes to midnight), 2026-01-16 whole, 2026-01-17 until 10:00.
        let samples = minutes(from: at(16, 57), to: at(24 + 24 + 10, 0))
        let document = try engine(samples).document()
        let whileTheLastDayRuns = at(24 + 24 + 10, 30)
        let table = SummaryTableRenderer.render(document, now: whileTheLastDayRuns)
        #expect(table.contains("date       day     rec     avgBPM"), "\(table)")
        #expect(cells(table, "2026-01-15").prefix(3) == ["2026-01-15", "partial", "7:03"])  // 423 minutes
        #expect(cells(table, "2026-01-16").prefix(3) == ["2026-01-16", "whole", "24:00"])
        #expect(cells(table, "2026-01-17").prefix(3) == ["2026-01-17", "ongoing", "10:00"])
        #expect(table.contains("partial and ongoing days are not scored"))

        // Once the last day is over, its 600 minutes make it partial; the others keep their mark.
        let later = SummaryTableRenderer.render(document, now: at(24 * 5, 0))
        #expect(cells(later, "2026-01-17").prefix(3) == ["2026-01-17", "partial", "10:00"])
        #expect(cells(later, "2026-01-16").prefix(2) == ["2026-01-16", "whole"])
    }

    @Test func theMarkIsTheRuleScoreUses() throws {
        let coverage = DayCoverage(dayEnd: at(24, 0), dayMinutes: 1440, recordedMinutes: 423, wornMinutes: 400, dayIsOver: true)
        #expect(coverage.status(at: at(25, 0)) == .partial(recordedMinutes: 423, dayMinutes: 1440))
        #expect(coverage.status(at: at(25, 0)).reason == "incomplete: 423 of 1440 minutes recorded (a complete day needs 90 %)")
        #expect(coverage.status(at: at(23, 0)) == .notOver)
        let whole = DayCoverage(dayEnd: at(24, 0), dayMinutes: 1440, recordedMinutes: 1296, wornMinutes: 1296, dayIsOver: true)
        #expect(whole.status(at: at(25, 0)) == .complete)  // 1296 = 90 % of 1440
        #expect(whole.status(at: at(25, 0)).isComplete == whole.isComplete(at: at(25, 0)))
    }

    @Test func sleepStartsAndStopsCarryTheirDates() throws {
        // A night from 22:30 on the 14th to 06:30 on the 15th is filed under the 15th.
        let night = stages(2, from: at(-1, -30), to: at(6, 30))
        let table = SummaryTableRenderer.render(try engine(night).document(), now: testNow)
        let row = try #require(table.split(separator: "\n").first { $0.contains("01-14 22:30") })
        #expect(row.hasPrefix("2026-01-15 01-14 22:30 01-15 06:30 "), "\(row)")
    }
}
