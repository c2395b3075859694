import BraceletDecoder
import Foundation

/// One calendar day in the user's time zone, with its boundaries in UTC.
///
/// A day runs from local 00:00 (inclusive) to the next local 00:00 (exclusive); on daylight-saving
/// days that is 23 or 25 hours.
public struct LocalDay: Sendable, Hashable, Comparable {
    /// Days since 1970-01-01 in local time (used as a key).
    public let dayNumber: Int
    /// The date as `YYYY-MM-DD`.
    public let date: String
    /// First second of the day, Unix seconds (UTC).
    public let start: Int64
    /// First second of the next day, Unix seconds (UTC).
    public let end: Int64

    /// Length of the day in seconds (86 400, or 82 800 / 90 000 on DST days).
    public var lengthSeconds: Int64 { end - start }

    /// Orders days chronologically.
    public static func < (lhs: LocalDay, rhs: LocalDay) -> Bool { lhs.dayNumber < rhs.dayNumber }
}

/// Maps Unix times to local days in one time zone, caching each day's boundaries.
struct DayCalendar: Sendable {
    let timeZone: TimeZone
    private var cache: [Int: LocalDay] = [:]

    init(timeZone: TimeZone) {
        self.timeZone = timeZone
    }

    /// Seconds east of UTC at `time`.
    func offset(at time: Int64) -> Int {
        Int(ZonedTime.offset(at: time, in: timeZone))
    }

    /// The local day number (days since 1970-01-01 local) containing `time`.
    func dayNumber(of time: Int64) -> Int {
        ZonedTime.dayNumber(ofUnix: time, in: timeZone)
    }

    /// The Unix time at which the clocks of the zone show `clockSeconds` after midnight on `day`,
    /// with the offset in force then: local 06:00 is 5 h after the start of a 23-hour day (spring
    /// forward) and 7 h after the start of a 25-hour one. A clock time a DST change skips reads as
    /// the same time after the change; the result stays within the day.
    func time(atClock clockSeconds: Int64, on day: LocalDay) -> Int64 {
        let wall = Int64(day.dayNumber) * 86_400 + clockSeconds
        let guess = wall - Int64(offset(at: wall))
        return min(max(wall - Int64(offset(at: guess)), day.start), day.end)
    }

    /// The day containing `time`.
    mutating func day(containing time: Int64) -> LocalDay {
        day(number: dayNumber(of: time))
    }

    /// The day with the given local day number.
    mutating func day(number: Int) -> LocalDay {
        if let cached = cache[number] { return cached }
        let made = makeDay(number: number)
        cache[number] = made
        return made
    }

    /// The day with the given `YYYY-MM-DD` date, or nil if the text is not a valid date.
    mutating func day(date text: String) -> LocalDay? {
        guard let date = LocalDate(iso: text) else { return nil }
        return day(number: date.dayNumber)
    }

    private func makeDay(number: Int) -> LocalDay {
        let date = LocalDate(dayNumber: number)
        let start = ZonedTime.start(of: date, in: timeZone)
        let end = ZonedTime.start(of: date.adding(days: 1), in: timeZone)
        return LocalDay(dayNumber: number, date: date.description, start: start, end: end)
    }
}

/// Formats a Unix time as local ISO 8601 text with offset, e.g. `2026-03-29T03:00:00+02:00`.
func localTimestamp(_ time: Int64, in zone: TimeZone) -> String {
    let offset = Int(ZonedTime.offset(at: time, in: zone))
    let (day, second) = ZonedTime.localSeconds(ofUnix: time, in: zone).floorDivided(by: 86_400)
    let dayNumber = Int(day), secs = Int(second)
    let sign = offset < 0 ? "-" : "+"
    let a = abs(offset)
    return LocalDate(dayNumber: dayNumber).description
        + String(format: "T%02d:%02d:%02d", secs / 3600, (secs % 3600) / 60, secs % 60) + sign + String(format: "%02d:%02d", a / 3600, (a % 3600) / 60)
}
