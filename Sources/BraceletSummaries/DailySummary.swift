/// Everything summarised for one local day: one group per summary model of the vendor's format
/// (heart rate, breath, activity, steps, SpO2, temperatures, emography).
public struct DailySummary: Sendable, Equatable, Codable {
    /// Local date, `YYYY-MM-DD`.
    public var date: String
    /// First second of the local day, Unix seconds.
    public var dayStart: Int64
    /// First second of the next local day, Unix seconds (dayEnd - dayStart is 23, 24 or 25 hours).
    public var dayEnd: Int64
    /// Heart rate.
    public var bpm: BPMSummary
    /// Breath rate.
    public var breath: BreathSummary
    /// Steps, distance, total energy, workouts.
    public var steps: StepsSummary
    /// Steps, distance, active energy.
    public var activity: ActivitySummary
    /// Skin temperature.
    public var bodyTemp: BodyTempSummary
    /// Core body temperature (V2).
    public var coreBodyTemperature: CoreBodyTemperatureSummary
    /// SpO2 (V2).
    public var spo2: Spo2Summary
    /// Skin conductance (V2).
    public var emography: EmographySummary
    /// HRV of the main sleep ending this day. Without a main sleep, for a device that does not stage
    /// sleep (a standard sensor, whose samples carry no sleep stage) worn with a heart rate between
    /// 00:00 and 06:00 local, the HRV of that night window; nil otherwise.
    @Nullable public var sleepHRV: NightlyHRV?
    /// Start of the main sleep ending this day (Unix seconds); nil without one.
    @Nullable public var mainSleepStart: Int64?
    /// How much of the day the data covers and whether the day is over.
    public var coverage: DayCoverage
    /// What was wrong with the day's samples (out-of-range values, treated as missing).
    public var diagnostics: DayDiagnostics
}
