/// Maps one day of bracelet summaries to ``VitalityRawMetrics`` with the rules of ``VitalityMapper``.
///
/// Pure: no I/O, no clock, same input gives the same output. This is the entry point the sync
/// layer's vitality sink calls for each day it delivers. Every metric whose inputs are missing stays
/// nil and is listed in the returned log with the reason.
///
/// - Parameters:
///   - day: the day's values from the bracelet summaries.
///   - age: the wearer's age in whole years (copied into the metrics).
/// - Returns: the metrics and one ``MissingField`` per nil metric.
public func vitalityMetrics(for day: BraceletDay, age: Int) -> (VitalityRawMetrics, [MissingField]) {
    VitalityMapper.map(BraceletDayAdapter.inputs(for: day), age: age)
}

/// Translates a ``BraceletDay`` into the shared mapping inputs, naming each input as
/// `BraceletDay.<property>` in missing-field reasons.
enum BraceletDayAdapter {
    static func inputs(for day: BraceletDay) -> MappingInputs {
        func n(_ name: String, _ value: Double?) -> NamedInput { NamedInput("BraceletDay.\(name)", value) }
        return MappingInputs(
            totalSleepSeconds: n("totalSleepSeconds", day.totalSleepSeconds),
            deepSleepSeconds: n("deepSleepSeconds", day.deepSleepSeconds),
            remSleepSeconds: n("remSleepSeconds", day.remSleepSeconds),
            awakeSeconds: n("awakeSeconds", day.awakeSeconds),
            timeInBedSeconds: n("timeInBedSeconds", day.timeInBedSeconds),
            movementMinutes: n("movementMinutes", day.movementMinutes),
            workoutsName: "BraceletDay.workoutDurationsSeconds",
            workoutSeconds: day.workoutDurationsSeconds.map { Optional($0) },
            steps: NamedInput("BraceletDay.steps", day.steps),
            activeEnergyKcal: n("activeEnergyKcal", day.activeEnergyKcal),
            totalEnergyKcal: n("totalEnergyKcal", day.totalEnergyKcal),
            hrvCandidates: [
                (n("nightlySDNNMs", day.nightlySDNNMs), .sdnn),
                (n("nightlyRMSSDMs", day.nightlyRMSSDMs), .rmssd),
            ],
            restingHeartRateCandidates: [
                n("sleepRestingHeartRate", day.sleepRestingHeartRate),
                n("dailyRestingHeartRate", day.dailyRestingHeartRate),
            ],
            breathingRateCandidates: [
                n("sleepBreathingRate", day.sleepBreathingRate),
                n("dailyAverageBreathingRate", day.dailyAverageBreathingRate),
            ])
    }
}
