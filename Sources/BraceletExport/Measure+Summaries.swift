import BraceletSummaries

extension Measure {
    /// Every number of one day's summary as measures: the daily values over the local day, the
    /// sleep values over the main sleep, and one measure per summary slot and value.
    ///
    /// This is the one place values leave the summary types; a missing value gives no measure.
    ///
    /// - Parameters:
    ///   - day: the day's summary.
    ///   - mainSleep: the main sleep session ending that day, if any (interval of the sleep values).
    ///   - slotSeconds: length of a summary slot.
    public static func all(of day: DailySummary, mainSleep: SleepSession?, slotSeconds: Int) -> [Measure] {
        var out: [Measure] = []
        func daily(_ kind: MeasureKind, _ statistic: MeasureStatistic, _ value: Double?) {
            if let value { out.append(Measure(kind: kind, statistic: statistic, start: day.dayStart, end: day.dayEnd, value: value, daily: true)) }
        }
        func night(_ kind: MeasureKind, _ statistic: MeasureStatistic, _ value: Double?) {
            if let value, let mainSleep {
                out.append(Measure(kind: kind, statistic: statistic, start: mainSleep.startSession, end: mainSleep.stopSession, value: value, daily: true))
            }
        }
        func slot(_ kind: MeasureKind, _ statistic: MeasureStatistic, _ start: Int64, _ value: Double?) {
            if let value { out.append(Measure(kind: kind, statistic: statistic, start: start, end: start + Int64(slotSeconds), value: value, daily: false)) }
        }
        let bpm = day.bpm
        daily(.heartRate, .average, bpm.averageBPM.map(Double.init))
        daily(.heartRate, .minimum, bpm.minDayBPM.map(Double.init))
        daily(.heartRate, .maximum, bpm.maxDayBPM.map(Double.init))
        daily(.restingHeartRate, .minimum, bpm.dailyRestingBPM.map(Double.init))
        night(.restingHeartRate, .minimum, bpm.sleepRestingBPM.map(Double.init))
        daily(.respiratoryRate, .average, day.breath.averageBreath.map(Double.init))
        daily(.respiratoryRate, .minimum, day.breath.minDayBreath.map(Double.init))
        daily(.respiratoryRate, .maximum, day.breath.maxDayBreath.map(Double.init))
        night(.respiratoryRate, .average, day.breath.sleepBreathRate)
        daily(.oxygenSaturation, .average, day.spo2.averageSpo2.map(Double.init))
        daily(.oxygenSaturation, .maximum, day.spo2.maxDaySpo2.map(Double.init))
        daily(.skinTemperature, .average, day.bodyTemp.averageTemp)
        daily(.skinTemperature, .maximum, day.bodyTemp.maxDayTemp)
        daily(.coreTemperature, .average, day.coreBodyTemperature.averageCoreBodyTemperature)
        daily(.coreTemperature, .maximum, day.coreBodyTemperature.maxDayCoreBodyTemperature)
        daily(.steps, .sum, day.steps.stepCount.map(Double.init))
        daily(.distance, .sum, day.steps.stepDistance)
        daily(.activeEnergy, .sum, day.activity.calories)
        daily(.totalEnergy, .sum, day.steps.stepCalories)
        daily(.skinConductance, .average, day.emography.stressLevelSkinConductanceAvg)
        daily(.skinConductance, .maximum, day.emography.stressLevelSkinConductanceMax)
        night(.hrvSDNN, .standardDeviation, day.sleepHRV?.sdnnMs)
        night(.hrvRMSSD, .rmssd, day.sleepHRV?.rmssdMs)
        for s in bpm.slots { slot(.heartRate, .average, s.intervalDate, Double(s.bpm)) }
        for s in day.breath.slots { slot(.respiratoryRate, .average, s.intervalDate, Double(s.brpm)) }
        for s in day.spo2.slots { slot(.oxygenSaturation, .average, s.intervalDate, Double(s.spo2)) }
        for s in day.bodyTemp.slots { slot(.skinTemperature, .average, s.intervalDate, s.temp) }
        for s in day.coreBodyTemperature.slots { slot(.coreTemperature, .average, s.intervalDate, s.coreBodyTemperature) }
        for s in day.steps.slots { slot(.steps, .sum, s.intervalDate, s.stepCount.map(Double.init)) }
        for s in day.activity.slots { slot(.activeEnergy, .sum, s.intervalDate, s.calories) }
        for s in day.emography.slots { slot(.skinConductance, .average, s.date, s.stressLevelSkinConductance) }
        return out
    }
}
