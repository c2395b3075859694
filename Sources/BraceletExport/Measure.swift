/// A unit the exports write, with its spelling in each vocabulary.
///
/// Every exported number keeps the unit the summaries computed it in (beats/min, °C, seconds, ...):
/// values are taken from the summaries in exactly one place (``Measure/all(of:slotSeconds:)``) and
/// no format converts them again, so a value cannot be scaled twice.
public enum ExportUnit: String, Sendable, CaseIterable {
    /// Heartbeats per minute.
    case beatsPerMinute
    /// Breaths per minute.
    case breathsPerMinute
    /// Percent (0-100).
    case percent
    /// Degrees Celsius.
    case celsius
    /// Seconds.
    case seconds
    /// Milliseconds.
    case milliseconds
    /// Steps (a count).
    case steps
    /// Kilocalories.
    case kilocalories
    /// Metres.
    case metres
    /// Minutes.
    case minutes
    /// Microsiemens (skin conductance).
    case microsiemens

    /// The Open mHealth / IEEE 1752 unit string.
    public var omh: String {
        switch self {
        case .beatsPerMinute: "beats/min"
        case .breathsPerMinute: "breaths/min"
        case .percent: "%"
        case .celsius: "C"
        case .seconds: "sec"
        case .milliseconds: "ms"
        case .steps: "steps"
        case .kilocalories: "kcal"
        case .metres: "m"
        case .minutes: "min"
        case .microsiemens: "uS"
        }
    }

    /// The UCUM code (FHIR `Quantity.code` with system `http://unitsofmeasure.org`).
    public var ucum: String {
        switch self {
        case .beatsPerMinute, .breathsPerMinute: "/min"
        case .percent: "%"
        case .celsius: "Cel"
        case .seconds: "s"
        case .milliseconds: "ms"
        case .steps: "{steps}"
        case .kilocalories: "kcal"
        case .metres: "m"
        case .minutes: "min"
        case .microsiemens: "uS"
        }
    }

    /// A short label for people (CSV headers, the report).
    public var label: String {
        switch self {
        case .beatsPerMinute: "bpm"
        case .breathsPerMinute: "breaths/min"
        case .celsius: "°C"
        case .seconds: "s"
        case .milliseconds: "ms"
        case .kilocalories: "kcal"
        case .metres: "m"
        case .microsiemens: "µS"
        default: omh
        }
    }
}

/// What a measure is, which fixes its unit.
public enum MeasureKind: String, Sendable, CaseIterable {
    /// Heart rate.
    case heartRate
    /// Resting heart rate (lowest 30-minute mean).
    case restingHeartRate
    /// Breath (respiratory) rate.
    case respiratoryRate
    /// Blood oxygen saturation (SpO2).
    case oxygenSaturation
    /// Skin temperature at the wrist.
    case skinTemperature
    /// Core body temperature (estimated).
    case coreTemperature
    /// Steps.
    case steps
    /// Distance walked.
    case distance
    /// Active energy.
    case activeEnergy
    /// Total (active + resting) energy.
    case totalEnergy
    /// Skin conductance (EDA).
    case skinConductance
    /// SDNN of the night's beat intervals.
    case hrvSDNN
    /// RMSSD of the night's beat intervals.
    case hrvRMSSD

    /// The unit the summaries hold this measure in.
    public var unit: ExportUnit {
        switch self {
        case .heartRate, .restingHeartRate: .beatsPerMinute
        case .respiratoryRate: .breathsPerMinute
        case .oxygenSaturation: .percent
        case .skinTemperature, .coreTemperature: .celsius
        case .steps: .steps
        case .distance: .metres
        case .activeEnergy, .totalEnergy: .kilocalories
        case .skinConductance: .microsiemens
        case .hrvSDNN, .hrvRMSSD: .milliseconds
        }
    }
}

/// How a measure summarises its interval.
public enum MeasureStatistic: String, Sendable {
    /// Time-weighted mean.
    case average
    /// Lowest value.
    case minimum
    /// Highest value.
    case maximum
    /// Total over the interval.
    case sum
    /// Standard deviation (SDNN of beat intervals).
    case standardDeviation = "standard deviation"
    /// Root mean square of successive differences (RMSSD).
    case rmssd
}

/// One exported number: what, over which interval, how summarised, in its unit.
public struct Measure: Sendable, Equatable {
    /// What is measured (fixes the unit).
    public var kind: MeasureKind
    /// How the interval is summarised.
    public var statistic: MeasureStatistic
    /// Interval start, Unix seconds.
    public var start: Int64
    /// Interval end (exclusive), Unix seconds.
    public var end: Int64
    /// The value in ``unit``.
    public var value: Double
    /// True for a value of the whole day (or night), false for one summary slot.
    public var daily: Bool

    /// The unit of ``value``.
    public var unit: ExportUnit { kind.unit }
}
