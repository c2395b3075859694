/// Heart-rate summary of one local day (Summaries data model `MetricBPMSummery`), plus minimum and resting HR.
///
/// Durations are whole minutes of counted time, percentages 0-100 of counted time; every field is
/// nil when no heart-rate sample counted that day.
public struct BPMSummary: Sendable, Equatable, Codable {
    /// Time-weighted mean of counted BPM, rounded.
    @Nullable public var averageBPM: Int?
    /// BPM of the latest counted sample of the day.
    @Nullable public var lastBPM: Int?
    /// Highest counted BPM.
    @Nullable public var maxDayBPM: Int?
    /// Lowest counted BPM.
    @Nullable public var minDayBPM: Int?
    /// Minutes below T50.
    @Nullable public var durationRestZone: Int?
    /// Minutes in T50..<T60.
    @Nullable public var durationWarmUpZone: Int?
    /// Minutes in T60..<T70.
    @Nullable public var durationFatBurnZone: Int?
    /// Minutes in T70..<T80.
    @Nullable public var durationEnduranceZone: Int?
    /// Minutes in T80..<T90.
    @Nullable public var durationPerformanceZone: Int?
    /// Minutes at T90 and above.
    @Nullable public var durationMaxZone: Int?
    /// Percent of counted time in the rest zone, rounded.
    @Nullable public var percentageRestZone: Int?
    /// Percent of counted time in the warm-up zone, rounded.
    @Nullable public var percentageWarmUpZone: Int?
    /// Percent of counted time in the fat-burn zone, rounded.
    @Nullable public var percentageFatBurnZone: Int?
    /// Percent of counted time in the endurance zone, rounded.
    @Nullable public var percentageEnduranceZone: Int?
    /// Percent of counted time in the performance zone, rounded.
    @Nullable public var percentagePerformanceZone: Int?
    /// Percent of counted time in the max zone, rounded.
    @Nullable public var percentageMaxZone: Int?
    /// Resting HR during the day's main sleep: lowest 30-minute rolling mean (>= 24 minutes with data).
    @Nullable public var sleepRestingBPM: Int?
    /// Resting HR over the whole local day, same rule.
    @Nullable public var dailyRestingBPM: Int?
    /// The zone thresholds used.
    public var zoneThresholds: HeartRateZoneThresholds
    /// One entry per summary slot with at least one counted sample.
    public var slots: [BPMSlot]

    /// An empty summary (everything nil) for the given thresholds.
    public init(zoneThresholds: HeartRateZoneThresholds) {
        self.zoneThresholds = zoneThresholds
        self.slots = []
    }
}

/// One summary slot of heart rate (Summaries data model `MetricBPMSummerySlot`).
public struct BPMSlot: Sendable, Equatable, Codable {
    /// Slot start, Unix seconds.
    public var intervalDate: Int64
    /// Mean of the counted BPM samples in the slot, rounded.
    public var bpm: Int

    /// Creates a slot.
    public init(intervalDate: Int64, bpm: Int) {
        self.intervalDate = intervalDate
        self.bpm = bpm
    }
}
