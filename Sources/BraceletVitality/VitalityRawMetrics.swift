/// The metrics the vitality scoring pipeline takes, for one day or averaged over a window.
///
/// Exactly the fields of the ROOK implementation requirements (ROOK implementation requirements, section 1) including `hrvType`; the
/// JSON keys are the property names. Every metric is optional: `nil` means "not measured", never 0.
/// Encoding writes `null` for a nil metric so a reader sees the key was considered.
public struct VitalityRawMetrics: Sendable, Hashable, Codable {
    /// Age in whole years; selects the age band of the reference ranges.
    public let age: Int
    // Sleep
    /// Main-sleep total sleep in hours.
    public let sleepDurationHours: Double?
    /// (Deep + REM) / total sleep x 100.
    public let restorativeSleepPercent: Double?
    /// Total sleep / time in bed x 100.
    public let sleepEfficiencyPercent: Double?
    /// Awake time / time in bed x 100.
    public let awakePercent: Double?
    // Movement
    /// Minutes of movement in the day.
    public let movementMinutes: Double?
    /// Steps in the day.
    public let steps: Int?
    /// Active energy in kcal (never total energy).
    public let activeCalories: Double?
    // Stress
    /// Heart-rate variability in ms, of the kind given by `hrvType`.
    public let hrvMs: Double?
    /// `sdnn` or `rmssd`; nil when `hrvMs` is nil (or for legacy data that did not say).
    public let hrvType: HRVType?
    /// Resting heart rate in beats per minute.
    public let restingHeartRate: Double?
    /// Breathing rate in breaths per minute.
    public let breathingRate: Double?

    /// Creates metrics; every metric defaults to nil.
    public init(
        age: Int,
        sleepDurationHours: Double? = nil, restorativeSleepPercent: Double? = nil,
        sleepEfficiencyPercent: Double? = nil, awakePercent: Double? = nil,
        movementMinutes: Double? = nil, steps: Int? = nil, activeCalories: Double? = nil,
        hrvMs: Double? = nil, hrvType: HRVType? = nil,
        restingHeartRate: Double? = nil, breathingRate: Double? = nil
    ) {
        self.age = age
        self.sleepDurationHours = sleepDurationHours
        self.restorativeSleepPercent = restorativeSleepPercent
        self.sleepEfficiencyPercent = sleepEfficiencyPercent
        self.awakePercent = awakePercent
        self.movementMinutes = movementMinutes
        self.steps = steps
        self.activeCalories = activeCalories
        self.hrvMs = hrvMs
        self.hrvType = hrvType
        self.restingHeartRate = restingHeartRate
        self.breathingRate = breathingRate
    }

    /// The value of one metric as a Double (steps converted), or nil when it was not measured.
    public func value(of field: VitalityField) -> Double? {
        switch field {
        case .sleepDurationHours: sleepDurationHours
        case .restorativeSleepPercent: restorativeSleepPercent
        case .sleepEfficiencyPercent: sleepEfficiencyPercent
        case .awakePercent: awakePercent
        case .movementMinutes: movementMinutes
        case .steps: steps.map(Double.init)
        case .activeCalories: activeCalories
        case .hrvMs: hrvMs
        case .restingHeartRate: restingHeartRate
        case .breathingRate: breathingRate
        }
    }

    /// True when at least one metric is present.
    public var hasAnyMetric: Bool { VitalityField.allCases.contains { value(of: $0) != nil } }

    enum CodingKeys: String, CodingKey {
        case age, sleepDurationHours, restorativeSleepPercent, sleepEfficiencyPercent, awakePercent
        case movementMinutes, steps, activeCalories, hrvMs, hrvType, restingHeartRate, breathingRate
    }

    /// Writes every key, with `null` for nil metrics.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(age, forKey: .age)
        try c.encode(sleepDurationHours, forKey: .sleepDurationHours)
        try c.encode(restorativeSleepPercent, forKey: .restorativeSleepPercent)
        try c.encode(sleepEfficiencyPercent, forKey: .sleepEfficiencyPercent)
        try c.encode(awakePercent, forKey: .awakePercent)
        try c.encode(movementMinutes, forKey: .movementMinutes)
        try c.encode(steps, forKey: .steps)
        try c.encode(activeCalories, forKey: .activeCalories)
        try c.encode(hrvMs, forKey: .hrvMs)
        try c.encode(hrvType, forKey: .hrvType)
        try c.encode(restingHeartRate, forKey: .restingHeartRate)
        try c.encode(breathingRate, forKey: .breathingRate)
    }
}
