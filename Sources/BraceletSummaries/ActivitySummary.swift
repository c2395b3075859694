/// Activity summary of one local day (Summaries data model `MetricActivitySummery`).
public struct ActivitySummary: Sendable, Equatable, Codable {
    /// Sum of steps.
    @Nullable public var steps: Int?
    /// round(steps x height x 0.414 / 100), metres.
    @Nullable public var distance: Int?
    /// Active energy expenditure of the day, kcal (total energy is `stepCalories`).
    @Nullable public var calories: Double?
    /// One entry per summary slot with steps or active energy.
    public var slots: [ActivitySlot]

    /// An empty summary.
    public init() { slots = [] }
}

/// One summary slot of activity (Summaries data model `MetricActivitySummerySlot`).
public struct ActivitySlot: Sendable, Equatable, Codable {
    /// Slot start, Unix seconds.
    public var intervalDate: Int64
    /// Sum of steps in the slot.
    @Nullable public var steps: Int?
    /// round(steps x height x 0.414 / 100), metres.
    @Nullable public var distance: Int?
    /// Active energy in the slot, kcal.
    @Nullable public var calories: Double?

    /// Creates a slot.
    public init(intervalDate: Int64, steps: Int?, distance: Int?, calories: Double?) {
        self.intervalDate = intervalDate
        self.steps = steps
        self.distance = distance
        self.calories = calories
    }
}
