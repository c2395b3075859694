/// A Date Time value (characteristic 0x2A08) as the health profiles carry it in their time stamps:
/// year (UInt16, 1582...9999), month (1...12), day (1...31), hours, minutes, seconds, in the
/// device's local time with no zone. A year, month or day of 0 means "not known". Placing it in
/// time is the reader's business (it knows the wearer's zone): see `LocalDate` in the decoder.
public struct SIGDateTime: Sendable, Hashable, CustomStringConvertible {
    /// The year, 0 when not known.
    public var year: Int
    /// The month 1...12, 0 when not known.
    public var month: Int
    /// The day of the month 1...31, 0 when not known.
    public var day: Int
    /// Hours 0...23.
    public var hours: Int
    /// Minutes 0...59.
    public var minutes: Int
    /// Seconds 0...59.
    public var seconds: Int

    /// A date and time.
    public init(year: Int, month: Int, day: Int, hours: Int, minutes: Int, seconds: Int) {
        self.year = year
        self.month = month
        self.day = day
        self.hours = hours
        self.minutes = minutes
        self.seconds = seconds
    }

    /// The Date Time in the first 7 bytes of `value` (a Date Time, or the Current Time 0x2A2B that
    /// starts with one); `nil` when `value` is shorter.
    public init?(_ value: [UInt8]) {
        guard value.count >= 7 else { return nil }
        self.init(year: Int(value[0]) | Int(value[1]) << 8, month: Int(value[2]), day: Int(value[3]),
                  hours: Int(value[4]), minutes: Int(value[5]), seconds: Int(value[6]))
    }

    /// The 7-byte wire form.
    public func encode() -> [UInt8] {
        var out: [UInt8] = []
        out.appendLittleEndian(UInt16(clamping: year))
        for part in [month, day, hours, minutes, seconds] { out.append(UInt8(clamping: part)) }
        return out
    }

    /// `YYYY-MM-DD hh:mm:ss` (device local time), with zeros for unknown parts.
    public var description: String {
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(year)-\(two(month))-\(two(day)) \(two(hours)):\(two(minutes)):\(two(seconds))"
    }
}
