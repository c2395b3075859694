import BraceletDecoder

/// One day of a ROOK input file: the date and whatever ROOK returned for it.
///
/// JSON: `{"date": "2026-01-05", "source": "whoop", "sleep_summary": {...},
/// "physical_summary": {...}, "activity_events": [...], "coverage": {...}}`; every key except
/// `date` may be absent. `coverage` (ours, not ROOK's) says how much of the day a bracelet recorded.
public struct ROOKDay: Sendable, Hashable, Codable {
    /// The local date the summaries belong to.
    public var date: LocalDate
    /// Free text naming the data source (for example "whoop"); informational.
    public var source: String?
    /// The night's sleep summary, if any.
    public var sleepSummary: ROOKSleepSummary?
    /// The day's physical summary, if any.
    public var physicalSummary: ROOKPhysicalSummary?
    /// The day's activity events, if any.
    public var activityEvents: [ROOKActivityEvent]?
    /// How much of the day was recorded; nil for whole-day summaries (taken as complete).
    public var coverage: ROOKDayCoverage?

    /// JSON names.
    enum CodingKeys: String, CodingKey, Sendable {
        case date, source
        case sleepSummary = "sleep_summary"
        case physicalSummary = "physical_summary"
        case activityEvents = "activity_events"
        case coverage
    }

    /// Creates a day.
    public init(
        date: LocalDate, source: String? = nil, sleepSummary: ROOKSleepSummary? = nil,
        physicalSummary: ROOKPhysicalSummary? = nil, activityEvents: [ROOKActivityEvent]? = nil,
        coverage: ROOKDayCoverage? = nil
    ) {
        self.date = date
        self.source = source
        self.sleepSummary = sleepSummary
        self.physicalSummary = physicalSummary
        self.activityEvents = activityEvents
        self.coverage = coverage
    }
}
