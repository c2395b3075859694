import BraceletDecoder
import BraceletSummaries

/// One participant's local day on the study page: how much of it the device recorded and was worn,
/// as the day's summary counted it (its ``BraceletSummaries/DayCoverage``), and whether the day
/// counts as a whole day, the rule `score` applies (``BraceletSummaries/DayCoverage/status(at:)``).
public struct StudyDay: Sendable, Hashable {
    /// Where a day stands at the moment the page is made.
    public enum State: String, Sendable, Hashable, CaseIterable {
        /// Over, with at least 90 % of its minutes recorded.
        case complete
        /// Over, with less than 90 % of its minutes recorded (recording began, ended or paused that day).
        case incomplete
        /// Over, with no day summary at all.
        case missing
        /// Not over yet in the participant's zone (today, or later): what it holds is so far.
        case notOver = "not_over"
    }

    /// The local date.
    public var date: LocalDate
    /// Where the day stands.
    public var state: State
    /// Minutes with any sample, from the day's summary; `nil` without a summary.
    public var recordedMinutes: Int?
    /// Minutes covered by a sample taken on the wrist, from the day's summary; `nil` without one.
    public var wornMinutes: Int?
    /// Minutes in the day (1380, 1440 or 1500), from the day's summary; `nil` without one.
    public var dayMinutes: Int?

    /// A day with a summary: its coverage says what was recorded and worn and, at `now` (Unix
    /// seconds), whether the day is over and complete (``BraceletSummaries/DayCoverage/status(at:)``,
    /// the rule every table, report and score applies).
    public init(date: LocalDate, coverage: DayCoverage, now: Int64) {
        self.date = date
        state = switch coverage.status(at: now) {
        case .notOver: .notOver
        case .complete: .complete
        case .partial: .incomplete
        }
        recordedMinutes = coverage.recordedMinutes
        wornMinutes = coverage.wornMinutes
        dayMinutes = coverage.dayMinutes
    }

    /// A day without a summary that ends at `dayEnd` (Unix seconds): missing once it is over at
    /// `now`, not over before.
    public init(missing date: LocalDate, dayEnd: Int64, now: Int64) {
        self.date = date
        state = now < dayEnd ? .notOver : .missing
    }

    /// The share of the day worn (0...1), `nil` without a summary.
    public var wornFraction: Double? {
        guard let wornMinutes, let dayMinutes, dayMinutes > 0 else { return nil }
        return Double(wornMinutes) / Double(dayMinutes)
    }
}
