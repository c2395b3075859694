import BraceletDecoder

/// What one local day of bracelet summaries provides to the vitality adapter.
///
/// A plain input struct so this module does not depend on the summaries or store types yet; the sync
/// layer fills it from a day's summaries. Every value is optional: nil means the summaries do not
/// have it (no main sleep that night, no HRV computed, ...). Never pass 0 for "unknown".
public struct BraceletDay: Sendable, Hashable, Codable {
    /// The local date the summaries belong to (the night ending on this morning for sleep).
    public var date: LocalDate

    // Main sleep session.
    /// Total sleep of the main sleep session in seconds (light + deep + REM).
    public var totalSleepSeconds: Double?
    /// Deep sleep in the main sleep session, seconds.
    public var deepSleepSeconds: Double?
    /// REM sleep in the main sleep session, seconds.
    public var remSleepSeconds: Double?
    /// Awake time inside the main sleep session, seconds.
    public var awakeSeconds: Double?
    /// Time in bed of the main sleep session (start to end), seconds.
    public var timeInBedSeconds: Double?

    // Movement.
    /// Minutes classified walk/run/cycle or with heart rate at or above the fat-burn threshold; nil
    /// when the day has no minute data.
    public var movementMinutes: Double?
    /// Durations of the day's workouts in seconds; used only when `movementMinutes` is nil.
    public var workoutDurationsSeconds: [Double]
    /// Steps in the day.
    public var steps: Int?
    /// Active energy in kcal; nil when the summaries only know total energy.
    public var activeEnergyKcal: Double?
    /// Total (active + resting) energy in kcal; logged, never used as active energy.
    public var totalEnergyKcal: Double?

    // Recovery.
    /// SDNN over the night's beat-to-beat intervals, ms.
    public var nightlySDNNMs: Double?
    /// RMSSD over the night's beat-to-beat intervals, ms.
    public var nightlyRMSSDMs: Double?
    /// Resting heart rate measured during sleep, bpm.
    public var sleepRestingHeartRate: Double?
    /// The day's resting heart rate, bpm (fallback).
    public var dailyRestingHeartRate: Double?
    /// Average breathing rate during sleep, breaths/min.
    public var sleepBreathingRate: Double?
    /// The day's average breathing rate, breaths/min (fallback).
    public var dailyAverageBreathingRate: Double?

    /// Creates a day; everything except the date defaults to "not available".
    public init(
        date: LocalDate,
        totalSleepSeconds: Double? = nil, deepSleepSeconds: Double? = nil, remSleepSeconds: Double? = nil,
        awakeSeconds: Double? = nil, timeInBedSeconds: Double? = nil,
        movementMinutes: Double? = nil, workoutDurationsSeconds: [Double] = [], steps: Int? = nil,
        activeEnergyKcal: Double? = nil, totalEnergyKcal: Double? = nil,
        nightlySDNNMs: Double? = nil, nightlyRMSSDMs: Double? = nil,
        sleepRestingHeartRate: Double? = nil, dailyRestingHeartRate: Double? = nil,
        sleepBreathingRate: Double? = nil, dailyAverageBreathingRate: Double? = nil
    ) {
        self.date = date
        self.totalSleepSeconds = totalSleepSeconds
        self.deepSleepSeconds = deepSleepSeconds
        self.remSleepSeconds = remSleepSeconds
        self.awakeSeconds = awakeSeconds
        self.timeInBedSeconds = timeInBedSeconds
        self.movementMinutes = movementMinutes
        self.workoutDurationsSeconds = workoutDurationsSeconds
        self.steps = steps
        self.activeEnergyKcal = activeEnergyKcal
        self.totalEnergyKcal = totalEnergyKcal
        self.nightlySDNNMs = nightlySDNNMs
        self.nightlyRMSSDMs = nightlyRMSSDMs
        self.sleepRestingHeartRate = sleepRestingHeartRate
        self.dailyRestingHeartRate = dailyRestingHeartRate
        self.sleepBreathingRate = sleepBreathingRate
        self.dailyAverageBreathingRate = dailyAverageBreathingRate
    }
}
