import BraceletDecoder

/// One day of a ROOK input file: the date and whatever ROOK returned for it.
///
/// JSON: `{"date": "2026-01-05", "source": "whoop", "sleep_summary": {...},
/// "physical_summary": {...}, "activity_events": [...]}`; every key except `date` may be absent.
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

    /// JSON names.
    enum CodingKeys: String, CodingKey, Sendable {
        case date, source
        case sleepSummary = "sleep_summary"
        case physicalSummary = "physical_summary"
        case activityEvents = "activity_events"
    }

    /// Creates a day.
    public init(
        date: LocalDate, source: String? = nil, sleepSummary: ROOKSleepSummary? = nil,
        physicalSummary: ROOKPhysicalSummary? = nil, activityEvents: [ROOKActivityEvent]? = nil
    ) {
        self.date = date
        self.source = source
        self.sleepSummary = sleepSummary
        self.physicalSummary = physicalSummary
        self.activityEvents = activityEvents
    }
}
