/// Blood-oxygen summary of one local day (V2 only; Summaries data model `MetricSpo2Summery`), percent.
public struct Spo2Summary: Sendable, Equatable, Codable {
    /// Time-weighted mean counted SpO2, rounded.
    @Nullable public var averageSpo2: Int?
    /// Latest counted SpO2.
    @Nullable public var lastSpo2: Int?
    /// Highest counted SpO2.
    @Nullable public var maxDaySpo2: Int?
    /// One entry per summary slot with a counted sample.
    public var slots: [Spo2Slot]

    /// An empty summary.
    public init() { slots = [] }
}

/// One summary slot of SpO2.
public struct Spo2Slot: Sendable, Equatable, Codable {
    /// Slot start, Unix seconds.
    public var intervalDate: Int64
    /// Mean counted SpO2 in the slot, rounded.
    public var spo2: Int

    /// Creates a slot.
    public init(intervalDate: Int64, spo2: Int) {
        self.intervalDate = intervalDate
        self.spo2 = spo2
    }
}
