import BraceletDecoder
import BraceletSummaries
import Foundation
import Testing
@testable import BraceletVitality

/// Windows use complete days only, say which they skipped, and need half the window by default.
@Suite struct CompleteDaysTests {
    /// 2026-01-01T00:00:00Z.
    static let jan1: Int64 = 1_767_225_600

    static func day(_ i: Int, steps: Int, recorded: Int = 1440, sleep: Double? = 7.5, rhr: Double? = 55) -> DatedVitalityMetrics {
        let end = jan1 + Int64(i + 1) * 86_400
        return DatedVitalityMetrics(
            date: LocalDate(iso: "2026-01-01")!.adding(days: i),
            metrics: VitalityRawMetrics(age: 35, sleepDurationHours: sleep, steps: steps, restingHeartRate: rhr),
            coverage: DayCoverage(dayEnd: end, dayMinutes: 1440, recordedMinutes: recorded, wornMinutes: recorded, dayIsOver: true))
    }

    @Test func theUnfinishedLastDayIsSkippedAndNamed() throws {
        // Seven whole days of 12000...12600 steps, then a last day with 462 minutes recorded and 34 steps.
        let days = (0..<7).map { Self.day($0, steps: 12_000 + 100 * $0) } + [Self.day(7, steps: 34, recorded: 462)]
        let now = Self.jan1 + 9 * 86_400
        let w = try VitalityWindowBuilder(length: 7, now: now).build(from: days, age: 35)
        #expect(w.end == LocalDate(iso: "2026-01-07"))
        #expect(w.metrics.steps == 12_300)             // (12000 + ... + 12600) / 7, not pulled down by 34
        #expect(w.skippedDays.map(\.date) == [LocalDate(iso: "2026-01-08")!]) // why the window ends a day early
        let ending = try VitalityWindowBuilder(length: 7, end: LocalDate(iso: "2026-01-08"), now: now).build(from: days, age: 35)
        #expect(ending.skippedDays.map(\.date) == [LocalDate(iso: "2026-01-08")!])
        #expect(ending.skippedDays.first?.reason.contains("462 of 1440 minutes") == true)
        #expect(ending.metrics.steps == 12_350)        // 12100...12600 over the 6 complete days in 01-02...01-08
        #expect(ending.notes.contains { $0.contains("--include-incomplete") })
        let all = try VitalityWindowBuilder(length: 7, end: LocalDate(iso: "2026-01-08"), includeIncompleteDays: true, now: now)
            .build(from: days, age: 35)
        #expect(all.metrics.steps == 10_591)           // (12100 + ... + 12600 + 34) / 7 = 74134 / 7 = 10590.6
    }

    @Test func aDayThatIsNotOverIsSkippedUntilItIs() throws {
        let days = (0..<8).map { Self.day($0, steps: 10_000) }
        let duringTheLastDay = Self.jan1 + 7 * 86_400 + 3600
        let w = try VitalityWindowBuilder(length: 7, now: duringTheLastDay).build(from: days, age: 35)
        #expect(w.end == LocalDate(iso: "2026-01-07"))
        let reason = try VitalityWindowBuilder(length: 7, end: LocalDate(iso: "2026-01-08"), now: duringTheLastDay)
            .build(from: days, age: 35).skippedDays.first?.reason
        #expect(reason?.contains("not over") == true)
    }

    @Test func oneDayOfThirtyIsNotEnoughByDefaultAndWarnsWhenAllowed() throws {
        let days = [Self.day(29, steps: 9000)]
        let now = Self.jan1 + 40 * 86_400
        #expect(throws: VitalityWindowError.self) {
            try VitalityWindowBuilder(length: 30, now: now).build(from: days, age: 35) // needs 15 days
        }
        let allowed = try VitalityWindowBuilder(length: 30, minimumDays: 1, now: now).build(from: days, age: 35)
        #expect(allowed.metrics.steps == 9000)
        #expect(allowed.warnings.count == 1)
        #expect(allowed.warnings.first?.contains("fewer days than half the window (15 of 30)") == true)
        #expect(VitalityWindowBuilder.defaultMinimumDays(length: 7) == 4)
    }
}
