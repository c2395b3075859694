import BraceletSummaries

/// Flat CSV tables (RFC 4180, header row, comma separated, `\r\n` line ends) that pandas and
/// spreadsheets read: one row per day, per sleep session, or per summary slot. A missing value is
/// an empty cell, never 0. Times are local RFC 3339 text with the offset. A day's row ends with
/// whether it is `whole`, `partial` (under 90 % of its minutes recorded) or `ongoing` (not over
/// when exported), and its recorded and total minutes.
public enum CSVExport {
    /// The tables.
    public enum Table: String, Sendable, CaseIterable {
        /// One row per local day.
        case daily
        /// One row per sleep session.
        case sleep
        /// One row per summary slot with any value.
        case slots
    }

    /// The table `table` of `dataset` as CSV text.
    public static func text(_ dataset: ExportDataset, table: Table) -> String {
        switch table {
        case .daily: let (header, rows) = daily(dataset); return text(header: header, rows: rows)
        case .sleep: return text(header: sleepHeader, rows: dataset.days.flatMap { $0.sleepSessions.map { sleepRow($0, dataset) } })
        case .slots: let (header, rows) = slots(dataset); return text(header: header, rows: rows)
        }
    }

    /// A header line and the rows, missing cells empty.
    static func text(header: [String], rows: [[String?]]) -> String {
        var out = header.joined(separator: ",") + "\r\n"
        for row in rows { out += row.map { field($0 ?? "") }.joined(separator: ",") + "\r\n" }
        return out
    }

    /// Quotes a field when it holds a comma, quote or line break.
    static func field(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    static func n(_ value: Int?) -> String? { value.map(String.init) }
    static func n(_ value: Double?) -> String? { value.map { number($0).csvText } }

    static func daily(_ ds: ExportDataset) -> ([String], [[String?]]) {
        let header = ["device", "date", "day_start", "day_end", "day_hours",
                      "hr_avg_bpm", "hr_min_bpm", "hr_max_bpm", "hr_resting_day_bpm", "hr_resting_sleep_bpm",
                      "zone_rest_min", "zone_warmup_min", "zone_fatburn_min", "zone_endurance_min", "zone_performance_min", "zone_max_min",
                      "steps", "distance_m", "active_kcal", "total_kcal", "workouts",
                      "breath_avg_per_min", "breath_sleep_per_min", "skin_temp_avg_c", "skin_temp_max_c",
                      "core_temp_avg_c", "core_temp_max_c", "spo2_avg_pct", "spo2_max_pct", "eda_avg_us", "eda_max_us",
                      "hrv_sleep_rmssd_ms", "hrv_sleep_sdnn_ms", "main_sleep_start",
                      "day_status", "recorded_minutes", "day_minutes"]
        let rows: [[String?]] = ds.days.map { day in
            let s = day.summary, b = s.bpm
            return [ds.device, s.date, ds.clock.timestamp(s.dayStart), ds.clock.timestamp(s.dayEnd), n(Double(s.dayEnd - s.dayStart) / 3600),
                    n(b.averageBPM), n(b.minDayBPM), n(b.maxDayBPM), n(b.dailyRestingBPM), n(b.sleepRestingBPM),
                    n(b.durationRestZone), n(b.durationWarmUpZone), n(b.durationFatBurnZone), n(b.durationEnduranceZone),
                    n(b.durationPerformanceZone), n(b.durationMaxZone),
                    n(s.steps.stepCount), n(s.steps.stepDistance), n(s.activity.calories), n(s.steps.stepCalories), n(s.steps.workoutsCount),
                    n(s.breath.averageBreath), n(s.breath.sleepBreathRate), n(s.bodyTemp.averageTemp), n(s.bodyTemp.maxDayTemp),
                    n(s.coreBodyTemperature.averageCoreBodyTemperature), n(s.coreBodyTemperature.maxDayCoreBodyTemperature),
                    n(s.spo2.averageSpo2), n(s.spo2.maxDaySpo2), n(s.emography.stressLevelSkinConductanceAvg),
                    n(s.emography.stressLevelSkinConductanceMax), n(s.sleepHRV?.rmssdMs), n(s.sleepHRV?.sdnnMs),
                    s.mainSleepStart.map(ds.clock.timestamp),
                    s.coverage.status(at: ds.now).label, n(s.coverage.recordedMinutes), n(s.coverage.dayMinutes)]
        }
        return (header, rows)
    }

    static let sleepHeader = ["device", "record_date", "start", "stop", "main_sleep", "time_in_bed_s", "total_sleep_s",
                              "light_s", "deep_s", "rem_s", "awake_s", "time_to_sleep_s", "time_to_wake_up_s", "waso_s",
                              "efficiency_pct", "restorative_pct", "awake_pct", "awakenings", "stage_runs"]

    static func sleepRow(_ s: SleepSession, _ ds: ExportDataset) -> [String?] {
        [ds.device, s.recordDate, ds.clock.timestamp(s.startSession), ds.clock.timestamp(s.stopSession),
         s.isMainSleep ? "true" : "false", n(s.timeInBed), n(s.totalSleepDuration),
         n(s.totalSecsLight), n(s.totalSecsDeep), n(s.totalSecsREM), n(s.totalSecsAwake),
         n(s.timeToSleep), n(s.timeToWakeUp), n(s.wakeAfterSleepOnset),
         n(s.sleepEfficiency), n(s.restorativeSleepPercent), n(s.awakePercent),
         n(s.totalSleepToAwakeTransitions), n(s.stageRuns.count)]
    }

    static func slots(_ ds: ExportDataset) -> ([String], [[String?]]) {
        let kinds: [(MeasureKind, String)] = [(.heartRate, "hr_bpm"), (.respiratoryRate, "breath_per_min"), (.steps, "steps"),
                                              (.activeEnergy, "active_kcal"), (.skinTemperature, "skin_temp_c"),
                                              (.coreTemperature, "core_temp_c"), (.oxygenSaturation, "spo2_pct"), (.skinConductance, "eda_us")]
        let header = ["device", "date", "slot_start", "slot_seconds"] + kinds.map(\.1)
        var rows: [[String?]] = []
        for day in ds.days {
            var bySlot: [Int64: [MeasureKind: Double]] = [:]
            for m in Measure.all(of: day.summary, mainSleep: nil, slotSeconds: ds.slotSeconds) where !m.daily {
                bySlot[m.start, default: [:]][m.kind] = m.value
            }
            for start in bySlot.keys.sorted() {
                let values = bySlot[start] ?? [:]
                rows.append([ds.device, day.summary.date, ds.clock.timestamp(start), n(ds.slotSeconds)] + kinds.map { n(values[$0.0]) })
            }
        }
        return (header, rows)
    }
}

extension JSONValue {
    /// A number's text as JSON writes it (integers without a fraction); empty for non-numbers.
    var csvText: String {
        switch self {
        case let .int(v): String(v)
        case let .double(v): String(v)
        default: ""
        }
    }
}
