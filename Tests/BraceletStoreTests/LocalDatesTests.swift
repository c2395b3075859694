import Foundation
import Testing
@testable import BraceletStore

@Test func localDatesFollowTheTimeZone() throws {
    // 1700000000 = 2023-11-14 22:13:20 UTC.
    let utc = try #require(TimeZone(identifier: "UTC"))
    let tokyo = try #require(TimeZone(identifier: "Asia/Tokyo"))
    #expect(LocalDates.dates(ofUnixSeconds: [1_700_000_000], in: utc) == ["2023-11-14"])
    #expect(LocalDates.dates(ofUnixSeconds: [1_700_000_000], in: tokyo) == ["2023-11-15"])
    // Kathmandu is UTC+5:45: local midnight of 15 Nov is 18:15:00 UTC = 1699985700.
    let kathmandu = try #require(TimeZone(identifier: "Asia/Kathmandu"))
    #expect(LocalDates.dates(ofUnixSeconds: [1_699_985_699], in: kathmandu) == ["2023-11-14"])
    #expect(LocalDates.dates(ofUnixSeconds: [1_699_985_700], in: kathmandu) == ["2023-11-15"])
    #expect(LocalDates.dates(ofUnixSeconds: [1_699_985_700, 1_699_985_699, 1_699_985_760], in: kathmandu)
        == ["2023-11-14", "2023-11-15"])
    #expect(LocalDates.dates(ofUnixSeconds: [-1], in: utc) == ["1969-12-31"])
    #expect(LocalDates.dates(ofUnixSeconds: [951_782_400], in: utc) == ["2000-02-29"])
}

@Test func localDayRangeIs23HoursOnSpringForward() throws {
    let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
    // 2024-03-31 00:00 CET = 2024-03-30 23:00 UTC; 2024-04-01 00:00 CEST = 2024-03-31 22:00 UTC.
    #expect(LocalDates.unixSecondsRange(of: "2024-03-31", in: berlin) == 1_711_839_600..<1_711_922_400)
    #expect(LocalDates.unixSecondsRange(of: "2024-02-30", in: berlin) == nil)
    #expect(LocalDates.isValid("2024-02-29"))
    #expect(!LocalDates.isValid("2023-02-29"))
    #expect(!LocalDates.isValid("2024-1-01"))
}
