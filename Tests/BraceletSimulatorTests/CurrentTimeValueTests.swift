import Testing
@testable import BraceletSimulator

@Test func currentTimeValueIsTheLocalCalendarTime() {
    // 2026-03-29T00:00:00Z at UTC+01:00 is Sunday 01:00 local; Monday = 1 ... Sunday = 7.
    #expect(CurrentTimeValue.encode(unixSeconds: 1_774_742_400, offsetMinutes: 60) == [0xEA, 0x07, 3, 29, 1, 0, 0, 7, 0, 0])
    // One second before the Unix epoch at UTC is 1969-12-31 23:59:59, a Wednesday.
    #expect(CurrentTimeValue.encode(unixSeconds: -1, offsetMinutes: 0) == [0xB1, 0x07, 12, 31, 23, 59, 59, 3, 0, 0])
}
