/// Maps ROOK summaries of one day to ``VitalityRawMetrics`` with the same rules as the bracelet
/// adapter, so a day scores the same whichever source it came from.
///
/// Source order per metric: sleep from the sleep summary; movement minutes from
/// `physical_summary.active_minutes_total_int`, else `active_seconds_int` / 60, else the sum of the
/// activity events' durations;
/// HRV from `sleep_summary.hrv_sdnn_ms_double`, then `sleep_summary.hrv_rmssd_ms_double`, then the
/// physical summary's daily `hrv_sdnn_avg_ms`, then `hrv_rmssd_avg_ms` (nightly before daily, SDNN
/// before RMSSD, the type kept and never converted); resting HR from the sleep summary, then the
/// physical summary; breathing rate from the sleep summary only (ROOK's physical summary has none).
///
/// Zero rule: ROOK sources write 0 for "not measured", so a 0 in any field (a summary value or an
/// event's duration) is read as missing, never scored. Movement fallback: activity events of a light
/// intensity (type `light`, `low`, `sedentary`, `rest` or `inactive`) are left out, because movement
/// minutes are scored on a moderate-to-vigorous curve.
public enum ROOKDataAdapter {
    /// The entry point the ROOK implementation requirements name: the metrics only.
    public static func mapToVitalityRawMetrics(
        age: Int,
        sleepSummary: ROOKSleepSummary?,
        physicalSummary: ROOKPhysicalSummary?,
        activityEvents: [ROOKActivityEvent]?
    ) -> VitalityRawMetrics {
        map(age: age, sleepSummary: sleepSummary, physicalSummary: physicalSummary, activityEvents: activityEvents).0
    }

    /// The metrics and one ``MissingField`` per nil metric, with the ROOK field names in the reasons.
    public static func map(
        age: Int,
        sleepSummary: ROOKSleepSummary?,
        physicalSummary: ROOKPhysicalSummary?,
        activityEvents: [ROOKActivityEvent]?
    ) -> (VitalityRawMetrics, [MissingField]) {
        VitalityMapper.map(inputs(sleep: sleepSummary, physical: physicalSummary, events: activityEvents), age: age)
    }

    /// Maps one day of a ROOK input file.
    public static func map(day: ROOKDay, age: Int) -> (VitalityRawMetrics, [MissingField]) {
        map(age: age, sleepSummary: day.sleepSummary, physicalSummary: day.physicalSummary,
            activityEvents: day.activityEvents)
    }

    /// Movement minutes: `active_minutes_total_int`, else the active seconds (the SDK's
    /// `activeSeconds`) in minutes, else `minutes` as it is (with its missing-value reason).
    static func movementMinutes(_ physical: ROOKPhysicalSummary?, _ minutes: NamedInput) -> NamedInput {
        guard minutes.value == nil || minutes.value == 0, let seconds = physical?.activeSecondsInt, seconds != 0 else { return minutes }
        return NamedInput("physical_summary.active_seconds_int / 60", Double(seconds) / 60, zeroMeansMissing: true)
    }

    /// Event types of a light intensity: not movement minutes.
    static let lightIntensityTypes: Set<String> = ["light", "low", "sedentary", "rest", "inactive"]

    static func inputs(sleep: ROOKSleepSummary?, physical: ROOKPhysicalSummary?, events: [ROOKActivityEvent]?) -> MappingInputs {
        // A whole summary being absent reads better in reasons than each of its fields.
        func s(_ key: ROOKSleepSummary.CodingKeys, _ value: Int?) -> NamedInput {
            s(key, value.map(Double.init))
        }
        func s(_ key: ROOKSleepSummary.CodingKeys, _ value: Double?) -> NamedInput {
            NamedInput(sleep == nil ? "sleep_summary (absent).\(key.rawValue)" : "sleep_summary.\(key.rawValue)", value,
                       zeroMeansMissing: true)
        }
        func p(_ key: ROOKPhysicalSummary.CodingKeys, _ value: Int?) -> NamedInput {
            p(key, value.map(Double.init))
        }
        func p(_ key: ROOKPhysicalSummary.CodingKeys, _ value: Double?) -> NamedInput {
            NamedInput(physical == nil ? "physical_summary (absent).\(key.rawValue)" : "physical_summary.\(key.rawValue)", value,
                       zeroMeansMissing: true)
        }
        let moving = (events ?? []).filter { !lightIntensityTypes.contains($0.type.lowercased()) }
        return MappingInputs(
            totalSleepSeconds: s(.sleepDurationSecondsInt, sleep?.sleepDurationSecondsInt),
            deepSleepSeconds: s(.deepSleepDurationSecondsInt, sleep?.deepSleepDurationSecondsInt),
            remSleepSeconds: s(.remSleepDurationSecondsInt, sleep?.remSleepDurationSecondsInt),
            awakeSeconds: s(.timeAwakeDuringSleepSecondsInt, sleep?.timeAwakeDuringSleepSecondsInt),
            timeInBedSeconds: s(.timeInBedSecondsInt, sleep?.timeInBedSecondsInt),
            movementMinutes: movementMinutes(physical, p(.activeMinutesTotalInt, physical?.activeMinutesTotalInt)),
            workoutsName: "activity_events[].duration_seconds_int (light-intensity events left out)",
            workoutSeconds: moving.map { event in event.durationSecondsInt.flatMap { $0 == 0 ? nil : Double($0) } },
            steps: p(.stepsInt, physical?.stepsInt),
            activeEnergyKcal: p(.activeCaloriesKcalDouble, physical?.activeCaloriesKcalDouble),
            totalEnergyKcal: p(.totalCaloriesKcalDouble, physical?.totalCaloriesKcalDouble),
            hrvCandidates: [
                (s(.hrvSdnnMsDouble, sleep?.hrvSdnnMsDouble), .sdnn),
                (s(.hrvRmssdMsDouble, sleep?.hrvRmssdMsDouble), .rmssd),
                (p(.hrvSdnnAvgMs, physical?.hrvSdnnAvgMs), .sdnn),
                (p(.hrvRmssdAvgMs, physical?.hrvRmssdAvgMs), .rmssd),
            ],
            restingHeartRateCandidates: [
                s(.hrRestingBpmInt, sleep?.hrRestingBpmInt),
                p(.hrRestingBpmInt, physical?.hrRestingBpmInt),
            ],
            breathingRateCandidates: [s(.breathsAvgPerMinInt, sleep?.breathsAvgPerMinInt)])
    }
}
