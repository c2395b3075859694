import BraceletDecoder

/// Whether a participant's last seven days can be scored: `score`'s own window rule
/// (``VitalityWindowBuilder/build(from:age:)``: complete days only, sleep, steps and HRV or resting
/// heart rate each on at least half of the window), called on the same vitality days `score` reads.
public struct StudyScoring: Sendable, Hashable {
    /// Days in the window: `score`'s default.
    public static let windowDays = 7

    /// First day of the window.
    public var start: LocalDate
    /// Last day of the window.
    public var end: LocalDate
    /// Whether `score --end END` (7 days) would score the window.
    public var scorable: Bool
    /// Why not, e.g. `sleep duration on 3 of 4 days`; `nil` when scorable.
    public var reason: String?

    /// The verdict of `score`'s rule on `days` (the device's vitality days; those outside the
    /// window are not used) for the window ending on `end`, at `now` (Unix seconds: a day must be
    /// over to count). The age only selects reference ranges, never whether a window scores: a
    /// participant without one is checked with the lowest supported age, as the recomputer stores
    /// such days.
    public init(days: [DatedVitalityMetrics], end: LocalDate, now: Int64, age: Int?) {
        self.end = end
        start = end.adding(days: -(Self.windowDays - 1))
        let builder = VitalityWindowBuilder(length: Self.windowDays, end: end, now: now)
        do {
            _ = try builder.build(from: days, age: age ?? ReferenceRanges.supportedAges.lowerBound)
            scorable = true
        } catch let VitalityWindowError.insufficientCoverage(_, _, minimum, shortfalls) {
            scorable = false
            reason = shortfalls.map { "\($0.requirement) on \($0.daysWithData) of \(minimum) days" }.joined(separator: "; ")
        } catch {
            scorable = false
            reason = error.description
        }
    }

    /// The window's last day for a page of `days` (oldest first): the latest day that is over,
    /// so a window never ends on today; the day before the page when none is over.
    public static func windowEnd(of days: [StudyDay]) -> LocalDate? {
        days.last { $0.state != .notOver }?.date ?? days.first?.date.adding(days: -1)
    }
}
