/// Breath (respiration) rate summary of one local day (Summaries data model `MetricBreathSummery`) plus minimum and
/// the breathing rate during main sleep.
public struct BreathSummary: Sendable, Equatable, Codable {
    /// Time-weighted mean of counted breath rate, rounded to whole breaths/min.
    @Nullable public var averageBreath: Int?
    /// Breath rate of the latest counted sample, rounded.
    @Nullable public var lastBreath: Int?
    /// Highest counted breath rate, rounded.
    @Nullable public var maxDayBreath: Int?
    /// Lowest counted breath rate, rounded.
    @Nullable public var minDayBreath: Int?
    /// Time-weighted mean of counted breath rate during the day's main sleep (not rounded).
    @Nullable public var sleepBreathRate: Double?
    /// One entry per summary slot with at least one counted sample.
    public var slots: [BreathSlot]

    /// An empty summary.
    public init() { slots = [] }
}

/// One summary slot of breath rate (Summaries data model `MetricBreathSummerySlot`).
public struct BreathSlot: Sendable, Equatable, Codable {
    /// Slot start, Unix seconds.
    public var intervalDate: Int64
    /// Mean counted breath rate in the slot, rounded.
    public var brpm: Int
    /// Lowest quality (0...4) among the samples that were averaged.
    public var brpmQ: Int

    /// Creates a slot.
    public init(intervalDate: Int64, brpm: Int, brpmQ: Int) {
        self.intervalDate = intervalDate
        self.brpm = brpm
        self.brpmQ = brpmQ
    }
}
