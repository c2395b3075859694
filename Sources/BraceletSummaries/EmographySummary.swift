/// Electrodermal activity summary of one local day (V2 only; Summaries data model `MetricEmographySummary`), µS.
///
/// The data model's slot fields `cognitiveZone`, `predictiveCZ`, `predictiveCZTransitionTime`, `czHour`,
/// `cortisolContribution` and their qualities have no published definition and are left out.
public struct EmographySummary: Sendable, Equatable, Codable {
    /// Time-weighted mean skin conductance of the day, microsiemens (not rounded: values are small).
    @Nullable public var stressLevelSkinConductanceAvg: Double?
    /// Latest skin conductance of the day.
    @Nullable public var stressLevelSkinConductanceLast: Double?
    /// Highest skin conductance of the day.
    @Nullable public var stressLevelSkinConductanceMax: Double?
    /// One entry per summary slot with data.
    public var slots: [EmographySlot]

    /// An empty summary.
    public init() { slots = [] }
}

/// One summary slot of skin conductance.
public struct EmographySlot: Sendable, Equatable, Codable {
    /// Slot start, Unix seconds (the data model calls it `date`).
    public var date: Int64
    /// Mean skin conductance in the slot, microsiemens.
    public var stressLevelSkinConductance: Double

    /// Creates a slot.
    public init(date: Int64, stressLevelSkinConductance: Double) {
        self.date = date
        self.stressLevelSkinConductance = stressLevelSkinConductance
    }
}
