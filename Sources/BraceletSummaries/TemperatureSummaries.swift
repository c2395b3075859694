/// Skin temperature summary of one local day (Summaries data model `MetricBodyTempSummery`), °C.
public struct BodyTempSummary: Sendable, Equatable, Codable {
    /// Time-weighted mean skin temperature.
    @Nullable public var averageTemp: Double?
    /// Latest skin temperature of the day.
    @Nullable public var lastTemp: Double?
    /// Highest skin temperature.
    @Nullable public var maxDayTemp: Double?
    /// One entry per summary slot with data.
    public var slots: [BodyTempSlot]

    /// An empty summary.
    public init() { slots = [] }
}

/// One summary slot of skin temperature.
public struct BodyTempSlot: Sendable, Equatable, Codable {
    /// Slot start, Unix seconds.
    public var intervalDate: Int64
    /// Mean skin temperature in the slot, °C.
    public var temp: Double

    /// Creates a slot.
    public init(intervalDate: Int64, temp: Double) {
        self.intervalDate = intervalDate
        self.temp = temp
    }
}

/// Core body temperature summary of one local day (V2 only; Summaries data model `MetricCoreBodyTemperatureSummary`), °C.
public struct CoreBodyTemperatureSummary: Sendable, Equatable, Codable {
    /// Time-weighted mean core temperature.
    @Nullable public var averageCoreBodyTemperature: Double?
    /// Latest core temperature of the day.
    @Nullable public var lastCoreBodyTemperature: Double?
    /// Highest core temperature.
    @Nullable public var maxDayCoreBodyTemperature: Double?
    /// One entry per summary slot with data.
    public var slots: [CoreBodyTemperatureSlot]

    /// An empty summary.
    public init() { slots = [] }
}

/// One summary slot of core body temperature.
public struct CoreBodyTemperatureSlot: Sendable, Equatable, Codable {
    /// Slot start, Unix seconds.
    public var intervalDate: Int64
    /// Mean core temperature in the slot, °C.
    public var coreBodyTemperature: Double

    /// Creates a slot.
    public init(intervalDate: Int64, coreBodyTemperature: Double) {
        self.intervalDate = intervalDate
        self.coreBodyTemperature = coreBodyTemperature
    }
}
