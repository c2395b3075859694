import Foundation

/// Renders summaries as a compact, fixed-width text table for people (`--format table`).
///
/// Missing values print as `-`, never as 0.
public enum SummaryTableRenderer {
    /// One line per day, then one line per sleep session; each day marked whole, partial or
    /// ongoing as it stands at `now` (Unix seconds).
    public static func render(_ document: SummaryDocument, now: Int64 = currentTime()) -> String {
        var lines = [daysHeader(timeZone: document.timeZone)]
        lines += document.days.map { dayRow($0, now: now) }
        lines.append(sessionsHeader)
        let zone = zone(document.timeZone)
        lines += document.sleepSessions.map { sessionRow($0, zone: zone) }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The lines before the first day's row (title and column names).
    public static func daysHeader(timeZone: String) -> String {
        "Days (\(timeZone))\n" + row(["date", "day", "rec", "avgBPM", "min", "max", "restHR", "sleepHR", "breath", "steps", "dist m",
                                      "kcal", "actkcal", "skin°C", "SpO2", "HRV ms", "workouts"])
    }

    /// One day's row: `day` says whether it is whole, partial or ongoing at `now` (the rule of
    /// ``DayCoverage/status(at:)``, which `bracelet score` applies too), `rec` the time recorded.
    public static func dayRow(_ d: DailySummary, now: Int64 = currentTime()) -> String {
        row([
            d.date, d.coverage.status(at: now).label, duration(d.coverage.recordedMinutes * 60), text(d.bpm.averageBPM), text(d.bpm.minDayBPM),
            text(d.bpm.maxDayBPM), text(d.bpm.dailyRestingBPM), text(d.bpm.sleepRestingBPM), text(d.breath.averageBreath),
            text(d.steps.stepCount), text(d.activity.distance), text(d.steps.stepCalories, 0),
            text(d.activity.calories, 0), text(d.bodyTemp.averageTemp, 1), text(d.spo2.averageSpo2),
            text(d.sleepHRV?.rmssdMs, 1), text(d.steps.workoutsCount),
        ])
    }

    /// The current time, Unix seconds (the default `now` of a table).
    public static func currentTime() -> Int64 { Int64(Date().timeIntervalSince1970) }

    /// The lines between the last day's row and the first session's row (the meaning of the `day`
    /// column's labels, an empty line, title with the meaning of the `main` column's labels, and
    /// column names).
    public static let sessionsHeader = "(day: whole, or partial when under \(Int(DayCoverage.minimumRecordedFraction * 100)) % of its minutes "
        + "were recorded, or ongoing when it is not over; partial and ongoing days are not scored; rec: hours:minutes recorded)\n"
        + "\nSleep sessions (main: the date's night; nap: a shorter sleep; "
        + "trunc: cut by the start or end of the data, not scored as a night)\n"
        + row(["date", "start", "stop", "main", "sleep", "inBed", "light", "deep", "REM", "awake", "eff%", "rest%", "WASO", "wakes"],
              widths: sessionWidths)

    /// Column widths of a session row: the start and stop carry their date (a night is filed under
    /// the date it ends, so its start is usually the evening before).
    private static let sessionWidths = [10, 11, 11]

    /// The `main` column's label of a session: a session cut by the start or end of the data is not
    /// a nap (it may be most of a night), so it is labelled as truncated whatever its length.
    public static func kind(of session: SleepSession) -> String {
        session.isMainSleep ? "main" : session.truncated ? "trunc" : "nap"
    }

    /// The zone session clock times are shown in, from a document's time-zone text.
    public static func zone(_ timeZone: String) -> TimeZone {
        (try? SummaryConfiguration.timeZone(named: timeZone)) ?? TimeZone(identifier: timeZone) ?? TimeZone(secondsFromGMT: 0) ?? .current
    }

    /// One sleep session's row, its start and stop as `MM-DD HH:MM` in `zone`.
    public static func sessionRow(_ s: SleepSession, zone: TimeZone) -> String {
        row([
            s.recordDate, dateAndClock(s.startSession, zone), dateAndClock(s.stopSession, zone), kind(of: s),
            duration(s.totalSleepDuration), duration(s.timeInBed), duration(s.totalSecsLight), duration(s.totalSecsDeep),
            duration(s.totalSecsREM), duration(s.totalSecsAwake), text(s.sleepEfficiency), text(s.restorativeSleepPercent),
            duration(s.wakeAfterSleepOnset), String(s.totalSleepToAwakeTransitions),
        ], widths: sessionWidths)
    }

    /// HRV as `name value` lines.
    public static func render(_ hrv: HRVResult) -> String {
        [
            "mean NN   \(text(hrv.meanNNMs, 1)) ms",
            "SDNN      \(text(hrv.sdnnMs, 1)) ms",
            "RMSSD     \(text(hrv.rmssdMs, 1)) ms",
            "pNN50     \(text(hrv.pnn50, 1)) %",
            "mean HR   \(text(hrv.meanHR, 1)) BPM",
            "kept      \(hrv.kept)",
            "dropped   \(hrv.dropped)" + (hrv.dropped == 0 ? "" : " (" + [
                ("unreadable", hrv.droppedBy.unreadable), ("same time", hrv.droppedBy.sameTime),
                ("out of range", hrv.droppedBy.outOfRange), ("artefact", hrv.droppedBy.artefact),
            ].filter { $0.1 > 0 }.map { "\($0.0) \($0.1)" }.joined(separator: ", ") + ")"),
        ].joined(separator: "\n") + "\n"
    }

    /// The cells padded to their widths: `widths[i]` for the first columns, 7 for the rest.
    private static func row(_ cells: [String], widths: [Int] = [10]) -> String {
        cells.enumerated().map { i, c in
            let width = i < widths.count ? widths[i] : 7
            return c.count >= width ? c : c + String(repeating: " ", count: width - c.count)
        }.joined(separator: " ")
    }

    private static func text(_ value: Int?) -> String { value.map(String.init) ?? "-" }

    private static func text(_ value: Double?, _ decimals: Int) -> String {
        value.map { String(format: "%.\(decimals)f", $0) } ?? "-"
    }

    private static func duration(_ seconds: Int) -> String {
        String(format: "%d:%02d", seconds / 3600, (seconds % 3600) / 60)
    }

    /// `MM-DD HH:MM` of `time` in `zone`.
    private static func dateAndClock(_ time: Int64, _ zone: TimeZone) -> String {
        let text = localTimestamp(time, in: zone)
        guard let t = text.firstIndex(of: "T") else { return text }
        return String(text[text.index(text.startIndex, offsetBy: 5)..<t]) + " " + String(text[text.index(after: t)...].prefix(5))
    }
}
