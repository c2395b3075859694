import BraceletDecoder
import Foundation
import Testing
@testable import BraceletSummaries

/// Europe/Amsterdam: 2026-03-29 has 23 hours, 2026-10-25 has 25 hours.
@Suite struct DaylightSavingTests {
    static func amsterdam() throws -> SummaryConfiguration {
        try SummaryConfiguration(hrMax: 180, timeZone: SummaryConfiguration.timeZone(named: "Europe/Amsterdam"))
    }

    /// A sample every minute from `from` to `to` at 60 BPM with one step.
    static func minutes(_ from: Int64, _ to: Int64) -> [Slot] {
        stride(from: from, to: to, by: 60).map { slot($0, bpm: 60, steps: 1) }
    }

    @Test func springForwardDayHas23Hours() throws {
        let start: Int64 = 1_774_738_800 // 2026-03-29 00:00 CET = 2026-03-28T23:00Z
        let end: Int64 = 1_774_821_600   // 2026-03-30 00:00 CEST = 2026-03-29T22:00Z
        #expect(end - start == 23 * 3600)
        let e = try engine(Self.minutes(start - 3600, end + 3600), configuration: Self.amsterdam())
        let day = try #require(e.day("2026-03-29"))
        #expect(day.dayStart == start)
        #expect(day.dayEnd == end)
        #expect(day.bpm.durationRestZone == 1380) // 23 x 60 counted minutes
        #expect(day.bpm.slots.count == 1380)
        #expect(day.steps.stepCount == 1380)
        #expect(day.steps.moveEveryHour == 23)
        #expect(day.bpm.slots.first?.intervalDate == start)
        // the hour before midnight belongs to the day before
        #expect(e.day("2026-03-28")?.steps.stepCount == 60)
    }

    @Test func fallBackDayHas25Hours() throws {
        let start: Int64 = 1_792_879_200 // 2026-10-25 00:00 CEST
        let end: Int64 = 1_792_969_200   // 2026-10-26 00:00 CET
        #expect(end - start == 25 * 3600)
        let e = try engine(Self.minutes(start, end), configuration: Self.amsterdam())
        let day = try #require(e.day("2026-10-25"))
        #expect(day.dayEnd - day.dayStart == 90_000)
        #expect(day.bpm.durationRestZone == 1500)
        #expect(day.steps.stepCount == 1500)
        #expect(day.steps.moveEveryHour == 25)
        #expect(e.days.count == 1)
    }

    @Test func sleepAcrossTheSpringForwardNight() throws {
        // 23:00 CET (22:00Z) to 07:00 CEST (05:00Z): 7 hours of light sleep
        let samples = stages(2, from: 1_774_735_200, to: 1_774_760_400)
        let s = try #require(try engine(samples, configuration: Self.amsterdam()).sleepSessions.first)
        #expect(s.recordDate == "2026-03-29")
        #expect(s.totalSleepDuration == 25_200)
        #expect(s.tzOffset == 7_200)
    }
}
