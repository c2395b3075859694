/// UTC timestamps written as ISO 8601 without Foundation (calendar dates come from ``LocalDate``).
public enum UTCTime {
    /// `2026-06-15T00:00:00Z` for Unix seconds; with `milliseconds`, `2026-06-15T00:00:00.250Z`.
    public static func iso8601(unixSeconds: Int64, milliseconds: Int? = nil) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        appendISO8601(unixSeconds: unixSeconds, milliseconds: milliseconds, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the text of ``iso8601(unixSeconds:milliseconds:)`` as bytes.
    public static func appendISO8601(unixSeconds: Int64, milliseconds: Int? = nil, to bytes: inout [UInt8]) {
        let (days, secondOfDay) = unixSeconds.floorDivided(by: 86_400)
        let second = Int(secondOfDay)
        let date = LocalDate(dayNumber: Int(days))
        let (y, m, d) = (date.year, date.month, date.day)
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
        let (seconds, milliseconds) = ms.floorDivided(by: 1_000)
        appendISO8601(unixSeconds: seconds, milliseconds: Int(milliseconds), to: &bytes)
    }

    /// ISO-8601 with milliseconds for Unix milliseconds.
    public static func iso8601(unixMilliseconds ms: Int64) -> String {
        let (seconds, milliseconds) = ms.floorDivided(by: 1_000)
        return iso8601(unixSeconds: seconds, milliseconds: Int(milliseconds))
    }
}
