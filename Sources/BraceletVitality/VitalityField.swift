/// One metric of ``VitalityRawMetrics`` (everything except `age` and `hrvType`, which travels with
/// ``hrvMs``). The raw value is the Swift property name, which is also the JSON key.
public enum VitalityField: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// Main-sleep total sleep in hours.
    case sleepDurationHours
    /// (Deep + REM) / total sleep x 100.
    case restorativeSleepPercent
    /// Total sleep / time in bed x 100.
    case sleepEfficiencyPercent
    /// Awake time / time in bed x 100.
    case awakePercent
    /// Minutes of movement in the day.
    case movementMinutes
    /// Steps in the day.
    case steps
    /// Active (not total) energy in kcal.
    case activeCalories
    /// Heart-rate variability in ms (SDNN or RMSSD, see ``VitalityRawMetrics/hrvType``).
    case hrvMs
    /// Resting heart rate in beats per minute.
    case restingHeartRate
    /// Breathing rate in breaths per minute.
    case breathingRate

    /// A short human label with the unit, for tables.
    public var label: String {
        switch self {
        case .sleepDurationHours: "Sleep duration (h)"
        case .restorativeSleepPercent: "Restorative sleep (%)"
        case .sleepEfficiencyPercent: "Sleep efficiency (%)"
        case .awakePercent: "Awake in bed (%)"
        case .movementMinutes: "Movement (min/day)"
        case .steps: "Steps (/day)"
        case .activeCalories: "Active energy (kcal)"
        case .hrvMs: "HRV (ms)"
        case .restingHeartRate: "Resting HR (bpm)"
        case .breathingRate: "Breathing (brpm)"
        }
    }

    /// The pillar this metric is scored in.
    public var pillar: VitalityPillar {
        switch self {
        case .sleepDurationHours, .restorativeSleepPercent, .sleepEfficiencyPercent, .awakePercent: .sleep
        case .movementMinutes, .steps, .activeCalories: .movement
        case .hrvMs, .restingHeartRate, .breathingRate: .stressRecovery
        }
    }

    /// The Swift property name.
    public var description: String { rawValue }
}
