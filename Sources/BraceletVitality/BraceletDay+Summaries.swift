import BraceletDecoder
import BraceletSummaries

extension BraceletDay {
    /// The vitality inputs of one local day, from that day's bracelet summaries and the sleep
    /// sessions that belong to it (a session belongs to the local date of its stop).
    ///
    /// Movement minutes count summary slots whose activity is walk, run or cycle (2, 4, 6) or whose
    /// heart rate is at or above the fat-burn threshold (T60); `nil` when the day has no slot with
    /// either value, so the adapter falls back to the workout durations.
    public init?(summary: DailySummary, sleepSessions: [SleepSession], summarySlotSeconds: Int = 60) {
        guard let date = LocalDate(iso: summary.date) else { return nil }
        let main = sleepSessions.first { $0.recordDate == summary.date && $0.isMainSleep }
        var movementSlots: Set<Int64> = []
        var slotsWithData = 0
        for slot in summary.steps.slots {
            guard let activity = slot.activityType else { continue }
            slotsWithData += 1
            if activity == 2 || activity == 4 || activity == 6 { movementSlots.insert(slot.intervalDate) }
        }
        let fatBurn = summary.bpm.zoneThresholds.t60
        for slot in summary.bpm.slots {
            slotsWithData += 1
            if slot.bpm >= fatBurn { movementSlots.insert(slot.intervalDate) }
        }
        self.init(
            date: date,
            totalSleepSeconds: main.map { Double($0.totalSleepDuration) },
            deepSleepSeconds: main.map { Double($0.totalSecsDeep) },
            remSleepSeconds: main.map { Double($0.totalSecsREM) },
            awakeSeconds: main.map { Double($0.totalSecsAwake) },
            timeInBedSeconds: main.map { Double($0.timeInBed) },
            movementMinutes: slotsWithData > 0 ? Double(movementSlots.count * summarySlotSeconds) / 60 : nil,
            workoutDurationsSeconds: summary.steps.workouts.map { Double($0.durationSeconds) },
            steps: summary.steps.stepCount,
            activeEnergyKcal: summary.activity.calories,
            totalEnergyKcal: summary.steps.stepCalories,
            nightlySDNNMs: summary.sleepHRV?.sdnnMs,
            nightlyRMSSDMs: summary.sleepHRV?.rmssdMs,
            sleepRestingHeartRate: summary.bpm.sleepRestingBPM.map(Double.init),
            dailyRestingHeartRate: summary.bpm.dailyRestingBPM.map(Double.init),
            sleepBreathingRate: summary.breath.sleepBreathRate,
            dailyAverageBreathingRate: summary.breath.averageBreath.map(Double.init)
        )
    }
}
