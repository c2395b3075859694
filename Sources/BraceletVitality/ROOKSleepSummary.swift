/// A ROOK sleep summary for one night, as the ROOK implementation requirements define it (section 3).
///
/// The JSON keys are ROOK's snake_case names exactly (see `CodingKeys`); the Swift properties are
/// their camelCase spellings. Every field is optional: a source that does not measure it omits it.
public struct ROOKSleepSummary: Sendable, Hashable, Codable {
    /// Total sleep, seconds (`sleep_duration_seconds_int`).
    public var sleepDurationSecondsInt: Int?
    /// Time in bed, seconds (`time_in_bed_seconds_int`).
    public var timeInBedSecondsInt: Int?
    /// Awake time during the sleep period, seconds (`time_awake_during_sleep_seconds_int`).
    public var timeAwakeDuringSleepSecondsInt: Int?
    /// REM sleep, seconds (`rem_sleep_duration_seconds_int`).
    public var remSleepDurationSecondsInt: Int?
    /// Deep sleep, seconds (`deep_sleep_duration_seconds_int`).
    public var deepSleepDurationSecondsInt: Int?
    /// Light sleep, seconds (`light_sleep_duration_seconds_int`); not used by the mapping.
    public var lightSleepDurationSecondsInt: Int?
    /// The source's own efficiency score 1-100 (`sleep_efficiency_1_100_score_int`); not used: the
    /// mapping computes efficiency from sleep and time in bed so every source is treated alike.
    public var sleepEfficiency1To100ScoreInt: Int?
    /// Nightly SDNN, ms (`hrv_sdnn_ms_double`).
    public var hrvSdnnMsDouble: Double?
    /// Nightly RMSSD, ms (`hrv_rmssd_ms_double`).
    public var hrvRmssdMsDouble: Double?
    /// Resting heart rate during sleep, bpm (`hr_resting_bpm_int`).
    public var hrRestingBpmInt: Int?
    /// Average breathing rate during sleep, breaths/min (`breaths_avg_per_min_int`).
    public var breathsAvgPerMinInt: Int?

    /// ROOK's snake_case JSON names.
    enum CodingKeys: String, CodingKey, Sendable, CaseIterable {
        case sleepDurationSecondsInt = "sleep_duration_seconds_int"
        case timeInBedSecondsInt = "time_in_bed_seconds_int"
        case timeAwakeDuringSleepSecondsInt = "time_awake_during_sleep_seconds_int"
        case remSleepDurationSecondsInt = "rem_sleep_duration_seconds_int"
        case deepSleepDurationSecondsInt = "deep_sleep_duration_seconds_int"
        case lightSleepDurationSecondsInt = "light_sleep_duration_seconds_int"
        case sleepEfficiency1To100ScoreInt = "sleep_efficiency_1_100_score_int"
        case hrvSdnnMsDouble = "hrv_sdnn_ms_double"
        case hrvRmssdMsDouble = "hrv_rmssd_ms_double"
        case hrRestingBpmInt = "hr_resting_bpm_int"
        case breathsAvgPerMinInt = "breaths_avg_per_min_int"
    }

    /// Creates a summary; every field defaults to absent.
    public init(
        sleepDurationSecondsInt: Int? = nil, timeInBedSecondsInt: Int? = nil,
        timeAwakeDuringSleepSecondsInt: Int? = nil, remSleepDurationSecondsInt: Int? = nil,
        deepSleepDurationSecondsInt: Int? = nil, lightSleepDurationSecondsInt: Int? = nil,
        sleepEfficiency1To100ScoreInt: Int? = nil, hrvSdnnMsDouble: Double? = nil,
        hrvRmssdMsDouble: Double? = nil, hrRestingBpmInt: Int? = nil, breathsAvgPerMinInt: Int? = nil
    ) {
        self.sleepDurationSecondsInt = sleepDurationSecondsInt
        self.timeInBedSecondsInt = timeInBedSecondsInt
        self.timeAwakeDuringSleepSecondsInt = timeAwakeDuringSleepSecondsInt
        self.remSleepDurationSecondsInt = remSleepDurationSecondsInt
        self.deepSleepDurationSecondsInt = deepSleepDurationSecondsInt
        self.lightSleepDurationSecondsInt = lightSleepDurationSecondsInt
        self.sleepEfficiency1To100ScoreInt = sleepEfficiency1To100ScoreInt
        self.hrvSdnnMsDouble = hrvSdnnMsDouble
        self.hrvRmssdMsDouble = hrvRmssdMsDouble
        self.hrRestingBpmInt = hrRestingBpmInt
        self.breathsAvgPerMinInt = breathsAvgPerMinInt
    }

    /// Decodes from ROOK JSON; whole-number fields reject fractions with the key's location.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        sleepDurationSecondsInt = try c.decodeWholeNumberIfPresent(forKey: .sleepDurationSecondsInt)
        timeInBedSecondsInt = try c.decodeWholeNumberIfPresent(forKey: .timeInBedSecondsInt)
        timeAwakeDuringSleepSecondsInt = try c.decodeWholeNumberIfPresent(forKey: .timeAwakeDuringSleepSecondsInt)
        remSleepDurationSecondsInt = try c.decodeWholeNumberIfPresent(forKey: .remSleepDurationSecondsInt)
        deepSleepDurationSecondsInt = try c.decodeWholeNumberIfPresent(forKey: .deepSleepDurationSecondsInt)
        lightSleepDurationSecondsInt = try c.decodeWholeNumberIfPresent(forKey: .lightSleepDurationSecondsInt)
        sleepEfficiency1To100ScoreInt = try c.decodeWholeNumberIfPresent(forKey: .sleepEfficiency1To100ScoreInt)
        hrvSdnnMsDouble = try c.decodeIfPresent(Double.self, forKey: .hrvSdnnMsDouble)
        hrvRmssdMsDouble = try c.decodeIfPresent(Double.self, forKey: .hrvRmssdMsDouble)
        hrRestingBpmInt = try c.decodeWholeNumberIfPresent(forKey: .hrRestingBpmInt)
        breathsAvgPerMinInt = try c.decodeWholeNumberIfPresent(forKey: .breathsAvgPerMinInt)
    }
}
