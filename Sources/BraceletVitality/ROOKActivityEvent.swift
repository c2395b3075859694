/// One ROOK activity event (a workout or session), as the ROOK implementation
/// requirements define it, section 3). Used for movement minutes only when the physical summary has no
/// active minutes.
public struct ROOKActivityEvent: Sendable, Hashable, Codable {
    /// Kind of activity, for example "moderate" or "vigorous" (`type`, required).
    public var type: String
    /// Duration in seconds (`duration_seconds_int`).
    public var durationSecondsInt: Int?
    /// Energy of the event, kcal (`calories_burned_kcal`); not used by the mapping.
    public var caloriesBurnedKcal: Double?

    /// ROOK's snake_case JSON names.
    enum CodingKeys: String, CodingKey, Sendable, CaseIterable {
        case type
        case durationSecondsInt = "duration_seconds_int"
        case caloriesBurnedKcal = "calories_burned_kcal"
    }

    /// Creates an event.
    public init(type: String, durationSecondsInt: Int? = nil, caloriesBurnedKcal: Double? = nil) {
        self.type = type
        self.durationSecondsInt = durationSecondsInt
        self.caloriesBurnedKcal = caloriesBurnedKcal
    }

    /// Decodes from ROOK JSON; whole-number fields reject fractions with the key's location.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        type = try c.decode(String.self, forKey: .type)
        durationSecondsInt = try c.decodeWholeNumberIfPresent(forKey: .durationSecondsInt)
        caloriesBurnedKcal = try c.decodeIfPresent(Double.self, forKey: .caloriesBurnedKcal)
    }
}
