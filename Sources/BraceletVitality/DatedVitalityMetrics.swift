import BraceletDecoder
import BraceletSummaries

/// One day's metrics with its date and the adapter's missing-field log: what the window builder
/// takes (one per day, from either adapter or from the store).
public struct DatedVitalityMetrics: Sendable, Hashable, Codable {
    /// The local date.
    public let date: LocalDate
    /// The day's metrics.
    public let metrics: VitalityRawMetrics
    /// Why metrics are nil, as logged by the adapter (empty when not known).
    public let missing: [MissingField]
    /// How much of the day the bracelet recorded; nil for sources that give whole-day summaries
    /// (ROOK), which are taken as complete.
    public let coverage: DayCoverage?

    /// Creates a dated entry.
    public init(date: LocalDate, metrics: VitalityRawMetrics, missing: [MissingField] = [], coverage: DayCoverage? = nil) {
        self.date = date
        self.metrics = metrics
        self.missing = missing
        self.coverage = coverage
    }
}
