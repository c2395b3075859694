import BraceletSummaries
import BraceletVitality
import Foundation

/// The ROOK-shaped file `bracelet score --rook` reads, built from the same day values the
/// bracelet's own vitality mapping uses (``BraceletDay``), so any ROOK-consuming pipeline scores a
/// bracelet history as `bracelet score --db` does.
///
/// Every day carries its `coverage` (minutes recorded, when the day ends), so `score --rook` leaves
/// out the partial days (the first day of the history, today) that `score --db` leaves out, and
/// both give the same window, days with data and figures.
///
/// ROOK has no field for two bracelet values: the breathing rate is whole breaths/min in ROOK
/// (the night's mean is rounded here), and the day's average breathing rate, the bracelet's
/// fallback when the night has none, has no ROOK field and is left out.
public enum ROOKExport {
    /// One ROOK day per stored day.
    public static func file(_ dataset: ExportDataset) -> ROOKInputFile {
        ROOKInputFile(days: dataset.days.compactMap { day(of: $0, dataset: dataset) })
    }

    /// The file as JSON bytes (sorted keys).
    public static func jsonData(_ dataset: ExportDataset, prettyPrinted: Bool = true) throws -> Data {
        try ExportJSON.encode(file(dataset), prettyPrinted: prettyPrinted)
    }

    static func day(of day: ExportDay, dataset: ExportDataset) -> ROOKDay? {
        guard let input = BraceletDay(summary: day.summary, sleepSessions: day.sleepSessions, summarySlotSeconds: dataset.slotSeconds)
        else { return nil }
        let main = day.mainSleep
        let sleep = ROOKSleepSummary(
            sleepDurationSecondsInt: whole(input.totalSleepSeconds),
            timeInBedSecondsInt: whole(input.timeInBedSeconds),
            timeAwakeDuringSleepSecondsInt: whole(input.awakeSeconds),
            remSleepDurationSecondsInt: whole(input.remSleepSeconds),
            deepSleepDurationSecondsInt: whole(input.deepSleepSeconds),
            lightSleepDurationSecondsInt: main?.totalSecsLight,
            sleepEfficiency1To100ScoreInt: main?.sleepEfficiency,
            hrvSdnnMsDouble: input.nightlySDNNMs,
            hrvRmssdMsDouble: input.nightlyRMSSDMs,
            hrRestingBpmInt: whole(input.sleepRestingHeartRate),
            breathsAvgPerMinInt: whole(input.sleepBreathingRate))
        let physical = ROOKPhysicalSummary(
            stepsInt: input.steps,
            activeMinutesTotalInt: whole(input.movementMinutes),
            activeCaloriesKcalDouble: input.activeEnergyKcal,
            totalCaloriesKcalDouble: input.totalEnergyKcal,
            hrRestingBpmInt: whole(input.dailyRestingHeartRate))
        let events = day.summary.steps.workouts.map { w in
            ROOKActivityEvent(type: IEEE1752Export.activityName(w.activityType), durationSecondsInt: w.durationSeconds)
        }
        return ROOKDay(date: input.date, source: "bracelet \(dataset.device)",
                       sleepSummary: sleep == ROOKSleepSummary() ? nil : sleep,
                       physicalSummary: physical == ROOKPhysicalSummary() ? nil : physical,
                       activityEvents: events.isEmpty ? nil : events,
                       coverage: ROOKDayCoverage(day.summary.coverage))
    }

    /// A value as whole units (ROOK's `_int` fields), rounded half away from zero.
    static func whole(_ value: Double?) -> Int? {
        guard let value, value.isFinite else { return nil }
        return Int(value.rounded())
    }
}

