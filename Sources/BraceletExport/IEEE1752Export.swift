import BraceletSummaries

/// IEEE 1752.1 data points: sleep-episode 1.0, sleep-stage-summary 1.0 (with one episode per stage
/// run), total-sleep-time 1.0 per sleep session, and physical-activity 1.0 per day and per workout.
public enum IEEE1752Export {
    /// The data points of every day of `dataset`, day by day.
    public static func dataPoints(_ dataset: ExportDataset) -> [JSONValue] {
        let writer = DataPointWriter(dataset: dataset)
        var points: [JSONValue] = []
        for day in dataset.days {
            for s in day.sleepSessions {
                points.append(sleepEpisode(s, writer))
                points.append(stageSummary(s, writer))
                points.append(totalSleepTime(s, writer))
            }
            if let activity = dailyActivity(day.summary, writer) { points.append(activity) }
            for workout in day.summary.steps.workouts { points.append(workoutActivity(workout, writer)) }
        }
        return points
    }

    /// The data points as one JSON array.
    public static func document(_ dataset: ExportDataset) -> JSONValue { .array(dataPoints(dataset)) }

    static func seconds(_ value: Int) -> JSONValue { unitValue(Double(value), .seconds) }

    static func sleepEpisode(_ s: SleepSession, _ writer: DataPointWriter) -> JSONValue {
        let body = JSONValue.compact([
            "effective_time_frame": writer.interval(s.startSession, s.stopSession),
            "latency_to_sleep_onset": seconds(s.timeToSleep),
            "latency_to_arising": seconds(s.timeToWakeUp),
            "total_sleep_time": seconds(s.totalSleepDuration),
            "light_sleep_duration": seconds(s.totalSecsLight),
            "deep_sleep_duration": seconds(s.totalSecsDeep),
            "rem_sleep_duration": seconds(s.totalSecsREM),
            "wake_after_sleep_onset": seconds(s.wakeAfterSleepOnset),
            "number_of_awakenings": .int(Int64(s.totalSleepToAwakeTransitions)),
            "is_main_sleep": .bool(s.isMainSleep),
            "sleep_efficiency_percentage": s.sleepEfficiency.map { unitValue(Double($0), .percent) },
        ])
        return writer.point(schema: ("ieee", "sleep-episode", "1.0"), key: "sleep|\(s.startSession)", end: s.stopSession, body: body)
    }

    static func stageSummary(_ s: SleepSession, _ writer: DataPointWriter) -> JSONValue {
        let runs = s.stageRuns
        func count(_ stage: SleepStage) -> JSONValue { .int(Int64(runs.filter { $0.stage == stage }.count)) }
        func share(_ value: Int) -> JSONValue? {
            s.totalSleepDuration > 0 ? unitValue(Double(value) / Double(s.totalSleepDuration) * 100, .percent) : nil
        }
        let summary = JSONValue.compact([
            "total_sleep_time": seconds(s.totalSleepDuration),
            "sleep_efficiency_percentage": s.sleepEfficiency.map { unitValue(Double($0), .percent) },
            "latency_to_sleep_onset": seconds(s.timeToSleep),
            "latency_to_arising": seconds(s.timeToWakeUp),
            "rem_sleep_duration": seconds(s.totalSecsREM),
            "rem_sleep_episode_count": count(.rem),
            "rem_sleep_percentage": share(s.totalSecsREM),
            "light_sleep_duration": seconds(s.totalSecsLight),
            "light_sleep_episode_count": count(.light),
            "light_sleep_percentage": share(s.totalSecsLight),
            "deep_sleep_duration": seconds(s.totalSecsDeep),
            "deep_sleep_episode_count": count(.deep),
            "deep_sleep_percentage": share(s.totalSecsDeep),
            "awake_duration": seconds(s.totalSecsAwake),
            "number_of_awakenings": .int(Int64(s.totalSleepToAwakeTransitions)),
            "awake_percentage": s.awakePercent.map { unitValue(Double($0), .percent) },
        ])
        let episodes: [JSONValue] = runs.map { run in
            ["sleep_stage_state": .string(stageState(run.stage)), "sleep_stage_time_frame": writer.interval(run.start, run.end)]
        }
        let body: JSONValue = [
            "sleep_stage_summary": summary,
            "sleep_stage_episodes": .array(episodes),
            "effective_time_frame": writer.interval(s.startSession, s.stopSession),
            "is_main_sleep": .bool(s.isMainSleep),
        ]
        return writer.point(schema: ("ieee", "sleep-stage-summary", "1.0"), key: "stages|\(s.startSession)", end: s.stopSession, body: body)
    }

    static func stageState(_ stage: SleepStage) -> String {
        switch stage {
        case .awake: "Awake"
        case .light: "Light_sleep"
        case .deep: "Deep_sleep"
        case .rem: "REM_sleep"
        }
    }

    static func totalSleepTime(_ s: SleepSession, _ writer: DataPointWriter) -> JSONValue {
        // Sleep events: the spans of consecutive non-awake runs.
        var events: [(Int64, Int64)] = []
        for run in s.stageRuns where run.stage != .awake {
            if let last = events.last, last.1 == run.start { events[events.count - 1].1 = run.end } else { events.append((run.start, run.end)) }
        }
        let body: JSONValue = [
            "total_sleep_time": seconds(s.totalSleepDuration),
            "sleep_events": .array(events.map { event in
                ["start_date_time": .string(writer.dataset.clock.timestamp(event.0)), "end_date_time": .string(writer.dataset.clock.timestamp(event.1))]
            }),
            "effective_time_frame": writer.interval(s.startSession, s.stopSession),
            "is_main_sleep": .bool(s.isMainSleep),
        ]
        return writer.point(schema: ("ieee", "total-sleep-time", "1.0"), key: "tst|\(s.startSession)", end: s.stopSession, body: body)
    }

    static func dailyActivity(_ day: DailySummary, _ writer: DataPointWriter) -> JSONValue? {
        guard day.steps.stepCount != nil || day.activity.calories != nil else { return nil }
        let body = JSONValue.compact([
            "activity_name": "daily activity",
            "effective_time_frame": writer.interval(day.dayStart, day.dayEnd),
            "base_movement_quantity": day.steps.stepCount.map { unitValue(Double($0), .steps) },
            "distance": day.steps.stepDistance.map { unitValue($0, .metres) },
            "kcal_burned": day.activity.calories.map { unitValue($0, .kilocalories) },
            "descriptive_statistic": "sum",
        ])
        return writer.point(schema: ("ieee", "physical-activity", "1.0"), key: "day|\(day.dayStart)", end: day.dayEnd, body: body)
    }

    static func workoutActivity(_ w: Workout, _ writer: DataPointWriter) -> JSONValue {
        let body = JSONValue.compact([
            "activity_name": .string(activityName(w.activityType)),
            "effective_time_frame": writer.interval(w.start, w.stop),
            "duration": seconds(w.durationSeconds),
            "base_movement_quantity": w.steps.map { unitValue(Double($0), .steps) },
        ])
        return writer.point(schema: ("ieee", "physical-activity", "1.0"), key: "workout|\(w.start)", end: w.stop, body: body)
    }

    /// The activity types of the summaries (walk 2, run 4, cycle 6); a workout found by heart rate
    /// alone has none.
    static func activityName(_ type: Int?) -> String {
        switch type {
        case 2: "walking"
        case 4: "running"
        case 6: "cycling"
        default: "exercise (elevated heart rate)"
        }
    }
}
