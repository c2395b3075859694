/// Steps summary of one local day (Summaries data model `MetricStepsSummary`), with its slots and workouts.
public struct StepsSummary: Sendable, Equatable, Codable {
    /// Sum of steps; nil when no sample reported steps.
    @Nullable public var stepCount: Int?
    /// stepCount x height(cm) x 0.414 / 100, metres.
    @Nullable public var stepDistance: Double?
    /// Total energy expenditure (active + passive) of the day, kcal.
    @Nullable public var stepCalories: Double?
    /// round(stepCount / step goal x 100); may exceed 100.
    @Nullable public var goalStepPercentage: Int?
    /// Number of clock hours of the day (counted from local midnight) with at least one step.
    @Nullable public var moveEveryHour: Int?
    /// Number of workouts that started this day (see ``Workout``); nil when there is no step,
    /// activity or heart-rate data at all.
    @Nullable public var workoutsCount: Int?
    /// The workouts themselves.
    public var workouts: [Workout]
    /// One entry per summary slot with any step, energy, speed or activity value.
    public var slots: [StepsSlot]

    /// An empty summary.
    public init() { workouts = []; slots = [] }
}

/// One summary slot of steps (Summaries data model `MetricStepsSummarySlot`).
public struct StepsSlot: Sendable, Equatable, Codable {
    /// Slot start, Unix seconds.
    public var intervalDate: Int64
    /// Sum of steps in the slot.
    @Nullable public var stepCount: Int?
    /// Total energy expenditure in the slot, kcal.
    @Nullable public var energyExp: Double?
    /// Mean speed in the slot, m/s.
    @Nullable public var speed: Double?
    /// Most frequent activity type in the slot (ties: lowest code).
    @Nullable public var activityType: Int?
    /// round(stepCount x height x 0.414 / 100), metres.
    @Nullable public var distance: Int?

    /// Creates a slot.
    public init(intervalDate: Int64, stepCount: Int?, energyExp: Double?, speed: Double?, activityType: Int?, distance: Int?) {
        self.intervalDate = intervalDate
        self.stepCount = stepCount
        self.energyExp = energyExp
        self.speed = speed
        self.activityType = activityType
        self.distance = distance
    }
}

/// A workout: at least 10 minutes of consecutive summary slots that are each "active" (activity
/// walk, run or cycle, or a counted mean heart rate at or above T60, the fat-burn threshold).
public struct Workout: Sendable, Equatable, Codable {
    /// Start of the first active slot, Unix seconds.
    public var start: Int64
    /// End of the last active slot, Unix seconds.
    public var stop: Int64
    /// stop - start, seconds.
    public var durationSeconds: Int
    /// Steps during the workout; nil when no slot reported steps.
    @Nullable public var steps: Int?
    /// Mean of the slot heart rates, rounded; nil without heart rate.
    @Nullable public var averageBPM: Int?
    /// Most frequent of walk (2), run (4), cycle (6) among the slots; nil when only heart rate made it a workout.
    @Nullable public var activityType: Int?

    /// Creates a workout.
    public init(start: Int64, stop: Int64, steps: Int?, averageBPM: Int?, activityType: Int?) {
        self.start = start
        self.stop = stop
        self.durationSeconds = Int(stop - start)
        self.steps = steps
        self.averageBPM = averageBPM
        self.activityType = activityType
    }
}
