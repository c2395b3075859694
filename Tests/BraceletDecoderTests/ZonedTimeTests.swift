import BraceletProtocol
import Foundation
import Testing
@testable import BraceletDecoder

/// The one conversion between Unix time and a zone's wall clock, against Foundation's calendar and
/// known offset changes: days of 23 and 25 hours, a midnight the clock skips, times before 1970.
@Suite struct ZonedTimeTests {
    private func zone(_ name: String) throws -> TimeZone { try #require(TimeZone(identifier: name)) }

    @Test func dayStartsAgreeWithFoundationsCalendarAcrossOffsetChanges() throws {
        // Amsterdam (02:00 -> 03:00 and back), Havana and Santiago (the change falls at midnight),
        // Lord Howe (half an hour), Apia (skipped 2011-12-30 whole), Sao Paulo (midnight skipped until 2019).
        for name in ["Europe/Amsterdam", "America/Havana", "America/Santiago", "Australia/Lord_Howe", "Pacific/Apia",
                     "America/Sao_Paulo", "UTC"] {
            let zone = try zone(name)
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = zone
            for day in stride(from: LocalDate(year: 2011, month: 1, day: 1)!.dayNumber, to: LocalDate(year: 2027, month: 1, day: 1)!.dayNumber, by: 1) {
                let date = LocalDate(dayNumber: day)
                guard let expected = calendar.date(from: DateComponents(year: date.year, month: date.month, day: date.day))
                    .map({ calendar.startOfDay(for: $0) }) else { continue }
                let start = ZonedTime.start(of: date, in: zone)
                guard calendar.component(.day, from: expected) == date.day else { continue }  // a day the zone skipped
                #expect(start == Int64(expected.timeIntervalSince1970), "\(name) \(date)")
                #expect(ZonedTime.dayNumber(ofUnix: start, in: zone) == day, "\(name) \(date)")
                #expect(ZonedTime.dayNumber(ofUnix: start - 1, in: zone) < day, "\(name) \(date)")
            }
        }
    }

    @Test func localTimesMapToTheirInstant() throws {
        let amsterdam = try zone("Europe/Amsterdam")
        // 2026-03-29: 02:00 CET becomes 03:00 CEST (01:00 UTC); 2026-10-25: 03:00 CEST becomes 02:00 CET.
        let march = Int64(LocalDate(year: 2026, month: 3, day: 29)!.dayNumber) * 86_400
        #expect(ZonedTime.unixSeconds(ofLocal: march + 3_600, in: amsterdam) == march)  // 01:00 CET = 00:00 UTC
        #expect(ZonedTime.unixSeconds(ofLocal: march + 2 * 3_600 + 1_800, in: amsterdam) == march + 3_600)  // skipped: the gap's end
        #expect(ZonedTime.unixSeconds(ofLocal: march + 4 * 3_600, in: amsterdam) == march + 2 * 3_600)  // 04:00 CEST
        let october = Int64(LocalDate(year: 2026, month: 10, day: 25)!.dayNumber) * 86_400
        // 02:30 is shown twice: the first (CEST, 00:30 UTC).
        #expect(ZonedTime.unixSeconds(ofLocal: october + 2 * 3_600 + 1_800, in: amsterdam) == october + 1_800)
        #expect(ZonedTime.start(of: LocalDate(year: 2026, month: 10, day: 26)!, in: amsterdam)
                - ZonedTime.start(of: LocalDate(year: 2026, month: 10, day: 25)!, in: amsterdam) == 90_000)
        // Before 1970 the day is the one before, not day 0.
        #expect(ZonedTime.dayNumber(ofUnix: -1, in: try zone("UTC")) == -1)
        #expect(ZonedTime.date(ofUnix: -86_400 * 365, in: try zone("UTC")).description == "1969-01-01")
    }

    /// Days kept per offset period name the same day as asking the zone each time, for instants
    /// in rising order with jumps back, across daylight-saving changes, a 30-minute change (Lord
    /// Howe), midnight changes (Havana, Santiago), a skipped calendar day (Apia, 2011) and UTC.
    @Test func daysKeptPerOffsetPeriodAreTheZonesDays() throws {
        for name in ["America/New_York", "Europe/Amsterdam", "Australia/Lord_Howe", "America/Havana", "America/Santiago",
                     "Pacific/Apia", "Asia/Kathmandu", "UTC"] {
            let zone = try #require(TimeZone(identifier: name))
            var days = ZonedTime.Days(in: zone)
            var generator = SeededGenerator(seed: 35)
            var t: Int64 = 1_293_840_000  // 2011-01-01
            var checked = 0
            while t < 1_420_070_400 {  // 2015-01-01
                let expected = ZonedTime.dayNumber(ofUnix: t, in: zone)
                let got = days.dayNumber(ofUnix: t)
                guard got == expected else {
                    Issue.record("\(name) at \(t): \(got), the zone says \(expected)")
                    break
                }
                checked += 1
                // Mostly forward by up to 7 hours; now and then back by up to 2 days.
                t += Int.random(in: 0..<20, using: &generator) == 0 ? -Int64.random(in: 0...172_800, using: &generator)
                                                                     : Int64.random(in: 1...25_200, using: &generator)
            }
            #expect(checked > 10_000, "\(name): \(checked) instants")
        }
    }

    @Test func floorDivisionRoundsDown() {
        #expect((-1 as Int64).floorDivided(by: 1_000) == (-1, 999))
        #expect((-1_000 as Int64).floorDivided(by: 1_000) == (-1, 0))
        #expect((1_999 as Int64).floorDivided(by: 1_000) == (1, 999))
    }

    @Test func dateTimesAreLocalSeconds() {
        let local = Int64(LocalDate(year: 2026, month: 7, day: 4)!.dayNumber) * 86_400 + 13 * 3_600 + 5 * 60 + 9
        let stamp = SIGDateTime(localSeconds: local)
        #expect(stamp.description == "2026-07-04 13:05:09")
        #expect(stamp.localSeconds == local)
        #expect(SIGDateTime(stamp.encode())?.localSeconds == local)
        #expect(SIGDateTime(year: 2026, month: 0, day: 4, hours: 1, minutes: 0, seconds: 0).localSeconds == nil)  // month unknown
        #expect(SIGDateTime(year: 2026, month: 7, day: 4, hours: 24, minutes: 0, seconds: 0).localSeconds == nil)
        #expect(SIGDateTime([0xEA, 0x07, 7, 4]) == nil)
    }
}
