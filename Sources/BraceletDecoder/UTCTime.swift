/// Fast UTC calendar conversions for output and day arithmetic, without Foundation.
public enum UTCTime {
    /// The civil date (proleptic Gregorian) of a day count since 1970-01-01.
    public static func civil(daysSinceEpoch days: Int64) -> (year: Int, month: Int, day: Int) {
        // Howard Hinnant's civil_from_days.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (Int(yoe + era * 400 + (month <= 2 ? 1 : 0)), Int(month), Int(day))
    }

    /// Days since 1970-01-01 of a civil date.
    public static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let m = Int64(month)
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// `2026-06-15T00:00:00Z` for Unix seconds; with `milliseconds`, `2026-06-15T00:00:00.250Z`.
    public static func iso8601(unixSeconds: Int64, milliseconds: Int? = nil) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        appendISO8601(unixSeconds: unixSeconds, milliseconds: milliseconds, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the text of ``iso8601(unixSeconds:milliseconds:)`` as bytes.
    public static func appendISO8601(unixSeconds: Int64, milliseconds: Int? = nil, to bytes: inout [UInt8]) {
        let days = unixSeconds >= 0 ? unixSeconds / 86_400 : (unixSeconds - 86_399) / 86_400
        let second = Int(unixSeconds - days * 86_400)
        let (y, m, d) = civil(daysSinceEpoch: days)
        func two(_ v: Int) { bytes.append(UInt8(48 + v / 10)); bytes.append(UInt8(48 + v % 10)) }
        let year = max(0, min(9999, y))
        two(year / 100); two(year % 100)
        bytes.append(45); two(m); bytes.append(45); two(d)
        bytes.append(84); two(second / 3600); bytes.append(58); two(second / 60 % 60); bytes.append(58); two(second % 60)
        if let ms = milliseconds {
            bytes.append(46)
            bytes.append(UInt8(48 + ms / 100)); bytes.append(UInt8(48 + ms / 10 % 10)); bytes.append(UInt8(48 + ms % 10))
        }
        bytes.append(90)
    }

    /// Appends the text of ``iso8601(unixMilliseconds:)`` as bytes.
    public static func appendISO8601(unixMilliseconds ms: Int64, to bytes: inout [UInt8]) {
        let seconds = ms >= 0 ? ms / 1000 : (ms - 999) / 1000
        appendISO8601(unixSeconds: seconds, milliseconds: Int(ms - seconds * 1000), to: &bytes)
    }

    /// ISO-8601 with milliseconds for Unix milliseconds.
    public static func iso8601(unixMilliseconds ms: Int64) -> String {
        let seconds = ms >= 0 ? ms / 1000 : (ms - 999) / 1000
        return iso8601(unixSeconds: seconds, milliseconds: Int(ms - seconds * 1000))
    }
}
