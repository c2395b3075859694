import BraceletDecoder

/// Metrics averaged over a window of 7-30 days, with per-metric coverage.
public struct VitalityWindow: Sendable, Hashable, Codable {
    /// First day of the window.
    public let start: LocalDate
    /// Last day of the window.
    public let end: LocalDate
    /// Number of days in the window (`end - start + 1`).
    public let length: Int
    /// Each metric averaged over the days that have it; nil when no day has it.
    public let metrics: VitalityRawMetrics
    /// One entry per metric, in ``VitalityField`` order.
    public let coverage: [FieldCoverage]
    /// Days in the window with at least one metric.
    public let daysWithAnyData: Int
    /// Explanations of choices made while averaging (for example HRV days of another type left out).
    public let notes: [String]
    /// The input days that fall in the window and were used, oldest first.
    public let days: [DatedVitalityMetrics]
    /// Days of the window left out because they were not complete (not over, or too little
    /// recorded), oldest first.
    public let skippedDays: [SkippedDay]
    /// Problems that did not stop the scoring but weaken it (fewer days than the default minimum).
    public let warnings: [String]

    /// Creates a window value (normally done by ``VitalityWindowBuilder``).
    public init(start: LocalDate, end: LocalDate, length: Int, metrics: VitalityRawMetrics,
                coverage: [FieldCoverage], daysWithAnyData: Int, notes: [String], days: [DatedVitalityMetrics],
                skippedDays: [SkippedDay] = [], warnings: [String] = []) {
        self.start = start
        self.end = end
        self.length = length
        self.metrics = metrics
        self.coverage = coverage
        self.daysWithAnyData = daysWithAnyData
        self.notes = notes
        self.days = days
        self.skippedDays = skippedDays
        self.warnings = warnings
    }

    /// Coverage of one metric.
    public func coverage(of field: VitalityField) -> FieldCoverage {
        coverage.first { $0.field == field } ?? FieldCoverage(field: field, daysWithData: 0, daysInWindow: length)
    }
}

/// A day left out of a window, and why.
public struct SkippedDay: Sendable, Hashable, Codable {
    /// The local date.
    public let date: LocalDate
    /// Why, for example "incomplete: 462 of 1440 minutes recorded".
    public let reason: String

    /// Creates an entry.
    public init(date: LocalDate, reason: String) {
        self.date = date
        self.reason = reason
    }
}
