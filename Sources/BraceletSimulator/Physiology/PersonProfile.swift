/// The person wearing the simulated bracelet: what sets their heart-rate range and energy use.
public struct PersonProfile: Sendable, Equatable {
    /// Biological sex, used only by the basal metabolic rate formula.
    public enum Sex: Sendable, Equatable {
        /// Female (Mifflin-St Jeor constant -161).
        case female
        /// Male (Mifflin-St Jeor constant +5).
        case male
    }

    /// Age in whole years (10 ... 100). Older people get lower heart-rate variability.
    public var ageYears: Int
    /// Resting heart rate in beats per minute (35 ... 100): roughly the light-sleep heart rate.
    public var restingHeartRate: Int
    /// Maximum heart rate in beats per minute (at least resting + 60, at most 230).
    public var maxHeartRate: Int
    /// Height in centimetres (100 ... 230); sets the stride length and so the walking speed.
    public var heightCm: Double
    /// Weight in kilograms (30 ... 250); sets the energy expenditure.
    public var weightKg: Double
    /// Biological sex for the basal metabolic rate.
    public var sex: Sex

    /// Creates a person; `PhysiologyModel` checks the ranges and names any value out of range.
    public init(ageYears: Int, restingHeartRate: Int, maxHeartRate: Int, heightCm: Double,
                weightKg: Double, sex: Sex) {
        self.ageYears = ageYears
        self.restingHeartRate = restingHeartRate
        self.maxHeartRate = maxHeartRate
        self.heightCm = heightCm
        self.weightKg = weightKg
        self.sex = sex
    }

    /// A fit 35-year-old: resting 58 bpm, maximum 185 bpm, 176 cm, 72 kg.
    public static let typicalAdult = PersonProfile(
        ageYears: 35, restingHeartRate: 58, maxHeartRate: 185, heightCm: 176, weightKg: 72, sex: .male)

    /// Basal metabolic rate in kcal per day (Mifflin-St Jeor equation).
    public var basalMetabolicRateKcalPerDay: Double {
        let base = 10 * weightKg + 6.25 * heightCm - 5 * Double(ageYears)
        return base + (sex == .male ? 5 : -161)
    }

    /// The first problem with this profile, or `nil` when every value is in range.
    func problem() -> String? {
        if !(10...100).contains(ageYears) { return "age \(ageYears) years is outside 10...100" }
        if !(35...100).contains(restingHeartRate) {
            return "resting heart rate \(restingHeartRate) bpm is outside 35...100"
        }
        if maxHeartRate > 230 || maxHeartRate < restingHeartRate + 60 {
            return "maximum heart rate \(maxHeartRate) bpm must be at least resting + 60 and at most 230"
        }
        if !(100...230).contains(heightCm) { return "height \(heightCm) cm is outside 100...230" }
        if !(30...250).contains(weightKg) { return "weight \(weightKg) kg is outside 30...250" }
        return nil
    }
}
