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
        for instant in instants { buckets.insert(floorDivide(instant, 900)) }
        var days = Set<Int64>()
        for bucket in buckets {
            let start = bucket * 900
            let offset = Int64(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(start))))
            days.insert(floorDivide(start + offset, 86_400))
        }
        return days.sorted().map(string(fromDayNumber:))
    }

    /// The half-open range of Unix seconds `[start, end)` that local date `date` covers in `timeZone`
    /// (23 or 25 hours long on daylight-saving days). `nil` when `date` is not a valid `YYYY-MM-DD`.
    public static func unixSecondsRange(of date: String, in timeZone: TimeZone) -> Range<Int64>? {
        guard let (year, month, day) = parse(date) else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        guard let start = calendar.date(from: DateComponents(year: year, month: month, day: day)),
              let end = calendar.date(byAdding: .day, value: 1, to: start)
        else { return nil }
        return Int64(start.timeIntervalSince1970)..<Int64(end.timeIntervalSince1970)
    }

    /// `true` when `date` is a real calendar date written `YYYY-MM-DD`.
    public static func isValid(_ date: String) -> Bool {
        parse(date) != nil
    }

    static func parse(_ date: String) -> (Int, Int, Int)? {
        let parts = date.split(separator: "-", omittingEmptySubsequences: false)
        guard date.utf8.count == 10, parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
              (1...12).contains(month), day >= 1
        else { return nil }
        let daysInMonth = [31, isLeap(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard day <= daysInMonth[month - 1] else { return nil }
        return (year, month, day)
    }

    static func isLeap(_ year: Int) -> Bool {
        (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    }

    /// Days since 1970-01-01 to `YYYY-MM-DD` (proleptic Gregorian; H. Hinnant's civil_from_days).
    static func string(fromDayNumber days: Int64) -> String {
        let z = days + 719_468
        let era = floorDivide(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }
}
