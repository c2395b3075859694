/// Why a `PhysiologyModel` could not be created. Each message says what was wrong and what to do.
public enum PhysiologyModelError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The time-zone identifier is not a known IANA zone.
    case unknownTimeZone(String)
    /// The slot interval is outside 1 ... 3600 seconds.
    case slotIntervalOutOfRange(Int32)
    /// The end is not after the start.
    case emptyTimeRange(start: Int64, end: Int64)
    /// The range is longer than the model supports.
    case timeRangeTooLong(seconds: Int64)
    /// The number of days is not positive or too large.
    case dayCountOutOfRange(Int)
    /// The serial is empty or not 1 ... 8 printable ASCII characters.
    case invalidSerial(String)
    /// A person parameter is out of range (the text names it).
    case invalidPerson(String)
    /// A schedule value is out of range (the text names it).
    case invalidSchedule(String)
    /// A battery value is out of range (the text names it).
    case invalidBattery(String)

    /// The longest range a model covers: 400 days.
    public static let maximumSeconds: Int64 = 400 * 86_400

    /// What was wrong and what to do.
    public var description: String {
        switch self {
        case .unknownTimeZone(let id):
            "Unknown time zone '\(id)'. Use an IANA identifier such as 'Europe/Amsterdam' or 'UTC' "
                + "(and install tzdata if none work)."
        case .slotIntervalOutOfRange(let seconds):
            "Slot interval \(seconds) s is outside 1...3600 s. Use 60 (the bracelet's default) or another value in range."
        case .emptyTimeRange(let start, let end):
            "The end (\(end)) is not after the start (\(start)), Unix seconds. Give an end later than the start."
        case .timeRangeTooLong(let seconds):
            "The range is \(seconds) s long; at most \(PhysiologyModelError.maximumSeconds) s (400 days) is "
                + "supported. Split it into several models."
        case .dayCountOutOfRange(let days):
            "Day count \(days) is outside 1...400. Ask for at least one day and at most 400."
        case .invalidSerial(let serial):
            "Serial '\(serial)' is not 1...8 printable ASCII characters. Use a short serial such as 'SIM00001'."
        case .invalidPerson(let problem):
            "Person: \(problem). Change that value in PersonProfile."
        case .invalidSchedule(let problem):
            "Schedule: \(problem). Change that value in DailySchedule."
        case .invalidBattery(let problem):
            "Battery: \(problem). Change that value in BatteryBehaviour."
        }
    }
}
