import BraceletExport
import BraceletSummaries
import Foundation
import Testing

@Suite struct ExportClockTests {
    @Test func timesCarryTheOffsetInForceAtEachInstant() throws {
        let clock = try Fixture.dataset().clock
        #expect(clock.timestamp(Fixture.dayStart) == "2026-03-08T00:00:00-05:00")
        #expect(clock.timestamp(Fixture.slot) == "2026-03-08T03:30:00-04:00")
        #expect(clock.timestamp(Fixture.dayEnd) == "2026-03-09T00:00:00-04:00")
        #expect(clock.zoneName(at: Fixture.slot) == "America/New_York (UTC-04:00)")
    }

    @Test func aDaylightSavingDayNeedsTheZoneByName() throws {
        let day = try Fixture.day
        #expect(throws: ExportError.self) { try ExportClock.resolve(days: [day], requested: nil) }
    }

    @Test func aZoneThatCutTheDayDifferentlyIsRefused() throws {
        let day = try Fixture.day
        #expect(throws: ExportError.self) { try ExportClock.resolve(days: [day], requested: TimeZone(identifier: "Europe/Berlin")) }
    }

    @Test func aFixedOffsetIsInferredWhenAllDaysShareIt() throws {
        var day = try Fixture.day
        // A 24-hour day at UTC-05:00.
        day.dayStart = 1_772_946_000
        day.dayEnd = day.dayStart + 86_400
        let clock = try ExportClock.resolve(days: [day], requested: nil)
        #expect(clock.offsetSeconds(at: Fixture.slot) == -18_000)
        #expect(clock.timestamp(day.dayStart) == "2026-03-08T00:00:00-05:00")
        #expect(clock.zoneName(at: day.dayStart) == "UTC-05:00")
    }
}
