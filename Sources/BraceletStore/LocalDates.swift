import BraceletDecoder
import Foundation

/// Local calendar dates (`YYYY-MM-DD`) of instants in a time zone, and back.
///
/// Summaries are per local day, so the store reports which local days new data touched. Offsets of
/// every time zone are whole multiples of 15 minutes and change only at 15-minute boundaries, so the
/// work is done once per distinct 15-minute bucket instead of once per slot.
public enum LocalDates {
    /// The sorted, distinct local dates of the given Unix-second instants in `timeZone`.
    public static func dates(ofUnixSeconds instants: some Sequence<Int64>, in timeZone: TimeZone) -> [String] {
        var buckets = Set<Int64>()
        // Instants come mostly in time order (a night's 30,000 beats share a few buckets): hash
        // only when the bucket changes.
        var last: Int64?
        for instant in instants {
            let bucket = instant.floorDivided(by: 900).quotient
            if bucket != last { buckets.insert(bucket); last = bucket }
        }
        var days = Set<Int64>()
        for bucket in buckets {
            let start = bucket * 900
            days.insert(Int64(ZonedTime.dayNumber(ofUnix: start, in: timeZone)))
        }
        return days.sorted().map(string(fromDayNumber:))
    }

    /// The half-open range of Unix seconds `[start, end)` that local date `date` covers in `timeZone`
    /// (23 or 25 hours long on daylight-saving days). `nil` when `date` is not a valid `YYYY-MM-DD`.
    public static func unixSecondsRange(of date: String, in timeZone: TimeZone) -> Range<Int64>? {
        guard let day = LocalDate(iso: date) else { return nil }
        return ZonedTime.start(of: day, in: timeZone)..<ZonedTime.start(of: day.adding(days: 1), in: timeZone)
    }

    /// `true` when `date` is a real calendar date written `YYYY-MM-DD`.
    public static func isValid(_ date: String) -> Bool {
        parse(date) != nil
    }

    static func parse(_ date: String) -> (Int, Int, Int)? {
        LocalDate(iso: date).map { ($0.year, $0.month, $0.day) }
    }

    /// Days since 1970-01-01 to `YYYY-MM-DD`.
    static func string(fromDayNumber days: Int64) -> String {
        LocalDate(dayNumber: Int(days)).description
    }
}
