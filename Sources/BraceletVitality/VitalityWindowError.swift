import BraceletDecoder

/// Why a window could not be built. Each message says what is wrong and what to do.
public enum VitalityWindowError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The window length is outside 7-30 days.
    case lengthOutOfRange(Int)
    /// The minimum number of days is below 1 or above the window length.
    case minimumDaysOutOfRange(minimumDays: Int, length: Int)
    /// No input day has any metric, so there is no latest day to end the window at.
    case noData
    /// The same date was given twice.
    case duplicateDate(LocalDate)
    /// The window lacks required data; every shortfall is listed.
    case insufficientCoverage(start: LocalDate, end: LocalDate, minimumDays: Int, shortfalls: [CoverageShortfall])

    /// What went wrong and what to do.
    public var description: String {
        switch self {
        case let .lengthOutOfRange(n):
            return "window length \(n) days is outside 7-30. Choose --days between 7 and 30."
        case let .minimumDaysOutOfRange(minimum, length):
            return "minimum days with data \(minimum) must be between 1 and the window length \(length). Choose --min-days in 1...\(length)."
        case .noData:
            return "no day in the input has any vitality metric, so there is nothing to score. Sync the bracelet or check the input file."
        case let .duplicateDate(date):
            return "date \(date) was given twice. Give one entry per day."
        case let .insufficientCoverage(start, end, minimum, shortfalls):
            let list = shortfalls.map { "\($0.requirement) on \($0.daysWithData) day(s)" }.joined(separator: "; ")
            return "window \(start)...\(end) does not have enough data (each needs at least \(minimum) day(s)): \(list). "
                + "Choose another --end or a longer --days, sync more data, or lower --min-days."
        }
    }
}

/// One unmet minimum-coverage requirement.
public struct CoverageShortfall: Sendable, Hashable, Codable {
    /// What is required, for example "sleep duration" or "HRV or resting heart rate".
    public let requirement: String
    /// Days in the window that have it.
    public let daysWithData: Int

    /// Creates a shortfall.
    public init(requirement: String, daysWithData: Int) {
        self.requirement = requirement
        self.daysWithData = daysWithData
    }
}
