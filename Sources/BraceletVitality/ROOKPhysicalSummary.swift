/// A ROOK physical (daily activity) summary, as the ROOK implementation requirements
/// define it (section 3). JSON keys are ROOK's snake_case names exactly (see `CodingKeys`).
public struct ROOKPhysicalSummary: Sendable, Hashable, Codable {
    /// Steps in the day (`steps_int`).
    public var stepsInt: Int?
    /// Active minutes in the day (`active_minutes_total_int`): the primary movement-minutes source.
    public var activeMinutesTotalInt: Int?
    /// Active time in the day, seconds (`active_seconds_int`; the ROOK SDK's `activeSeconds`): the
    /// movement minutes (divided by 60) when `active_minutes_total_int` is absent.
    public var activeSecondsInt: Int?
    /// Active energy, kcal (`active_calories_kcal_double`).
    public var activeCaloriesKcalDouble: Double?
    /// Total energy, kcal (`total_calories_kcal_double`); never used as active energy.
    public var totalCaloriesKcalDouble: Double?
    /// The day's resting heart rate, bpm (`hr_resting_bpm_int`): fallback for sleep resting HR.
    public var hrRestingBpmInt: Int?
    /// Daily average SDNN, ms (`hrv_sdnn_avg_ms`): fallback after the nightly values.
    public var hrvSdnnAvgMs: Double?
    /// Daily average RMSSD, ms (`hrv_rmssd_avg_ms`): last HRV fallback.
    public var hrvRmssdAvgMs: Double?

    /// ROOK's snake_case JSON names.
    enum CodingKeys: String, CodingKey, Sendable, CaseIterable {
        case stepsInt = "steps_int"
        case activeMinutesTotalInt = "active_minutes_total_int"
        case activeSecondsInt = "active_seconds_int"
        case activeCaloriesKcalDouble = "active_calories_kcal_double"
        case totalCaloriesKcalDouble = "total_calories_kcal_double"
        case hrRestingBpmInt = "hr_resting_bpm_int"
        case hrvSdnnAvgMs = "hrv_sdnn_avg_ms"
        case hrvRmssdAvgMs = "hrv_rmssd_avg_ms"
    }

    /// Creates a summary; every field defaults to absent.
    public init(
        stepsInt: Int? = nil, activeMinutesTotalInt: Int? = nil, activeCaloriesKcalDouble: Double? = nil,
        totalCaloriesKcalDouble: Double? = nil, hrRestingBpmInt: Int? = nil,
        hrvSdnnAvgMs: Double? = nil, hrvRmssdAvgMs: Double? = nil, activeSecondsInt: Int? = nil
    ) {
        self.stepsInt = stepsInt
        self.activeMinutesTotalInt = activeMinutesTotalInt
        self.activeCaloriesKcalDouble = activeCaloriesKcalDouble
        self.totalCaloriesKcalDouble = totalCaloriesKcalDouble
        self.hrRestingBpmInt = hrRestingBpmInt
        self.hrvSdnnAvgMs = hrvSdnnAvgMs
        self.hrvRmssdAvgMs = hrvRmssdAvgMs
        self.activeSecondsInt = activeSecondsInt
    }

    /// Decodes from ROOK JSON; whole-number fields reject fractions with the key's location.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        stepsInt = try c.decodeWholeNumberIfPresent(forKey: .stepsInt)
        activeMinutesTotalInt = try c.decodeWholeNumberIfPresent(forKey: .activeMinutesTotalInt)
        activeSecondsInt = try c.decodeWholeNumberIfPresent(forKey: .activeSecondsInt)
        activeCaloriesKcalDouble = try c.decodeIfPresent(Double.self, forKey: .activeCaloriesKcalDouble)
        totalCaloriesKcalDouble = try c.decodeIfPresent(Double.self, forKey: .totalCaloriesKcalDouble)
        hrRestingBpmInt = try c.decodeWholeNumberIfPresent(forKey: .hrRestingBpmInt)
        hrvSdnnAvgMs = try c.decodeIfPresent(Double.self, forKey: .hrvSdnnAvgMs)
        hrvRmssdAvgMs = try c.decodeIfPresent(Double.self, forKey: .hrvRmssdAvgMs)
    }
}
