import BraceletDecoder
import Foundation

/// Converts between UTC Unix seconds and the wall clock of one IANA time zone over a bounded range.
///
/// The UTC offsets in the range are looked up once (Foundation is slow per call), so converting a
/// slot's time to local time is a short scan of a handful of offset changes.
struct LocalClock: Sendable {
    let timeZone: TimeZone
    /// UTC instants at which a new offset starts, ascending; the first is before the range.
    private let changeTimes: [Int64]
    /// Offset from UTC in seconds that applies from the matching `changeTimes` entry on.
    private let offsets: [Int64]
    private let calendar: Calendar

    init(timeZone: TimeZone, from start: Int64, to end: Int64) {
        self.timeZone = timeZone
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        self.calendar = calendar
        let margin: Int64 = 3 * 86_400
        var times = [start - margin]
        var offsets = [Int64(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(start - margin))))]
        var cursor = Date(timeIntervalSince1970: Double(start - margin))
        let limit = Date(timeIntervalSince1970: Double(end + margin))
        while let next = timeZone.nextDaylightSavingTimeTransition(after: cursor), next < limit, next > cursor {
            times.append(Int64(next.timeIntervalSince1970.rounded()))
            offsets.append(Int64(timeZone.secondsFromGMT(for: next)))
            cursor = next
        }
        changeTimes = times
        self.offsets = offsets
    }

    /// Offset from UTC in seconds at the UTC instant `t` (binary search over the offset changes).
    @inline(__always)
    func offset(at t: Int64) -> Int64 {
        var low = 0
        var high = changeTimes.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if changeTimes[middle] <= t { low = middle } else { high = middle - 1 }
        }
        return offsets[low]
    }

    /// Local calendar day of `t` as a day number (days since 1970-01-01 on the local wall clock).
    func localDay(of t: Int64) -> Int64 {
        (t + offset(at: t)).floorDivided(by: 86_400).quotient
    }

    /// Local hour of day (0 ..< 24, fractional) at the UTC instant `t`.
    @inline(__always)
    func localHour(at t: Double) -> Double {
        let local = t + Double(offset(at: Int64(t)))
        let seconds = local - 86_400 * floor(local / 86_400)
        return seconds / 3_600
    }

    /// The UTC instant at which the local wall clock shows `minutes` after midnight on `day`. Times
    /// that do not exist (skipped by a DST change) or exist twice resolve as Foundation does.
    func utc(day: Int64, minutesAfterMidnight minutes: Int) -> Int64 {
        let date = LocalDate(dayNumber: Int(day))
        let (year, month, dayOfMonth) = (date.year, date.month, date.day)
        var parts = DateComponents()
        parts.year = year
        parts.month = month
        parts.day = dayOfMonth
        parts.hour = minutes / 60
        parts.minute = minutes % 60
        if let date = calendar.date(from: parts) {
            return Int64(date.timeIntervalSince1970.rounded())
        }
        // Fallback: treat the wall clock as if the offset at noon of that day applied all day.
        let noon = day * 86_400 + 43_200
        let local = day * 86_400 + Int64(minutes) * 60
        return local - offset(at: noon - offset(at: noon))
    }

    /// The UTC instant `days` local calendar days after `t`, at the same local clock time.
    func adding(days: Int, to t: Int64) -> Int64? {
        let date = Date(timeIntervalSince1970: Double(t))
        guard let later = calendar.date(byAdding: .day, value: days, to: date) else { return nil }
        return Int64(later.timeIntervalSince1970.rounded())
    }
}
