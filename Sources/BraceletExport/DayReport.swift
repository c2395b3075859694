import BraceletSummaries
import BraceletVitality

/// The day report: one self-contained HTML page (inline CSS and SVG, no script, nothing loaded
/// from the network) that prints on one A4 page: the night's hypnogram, the day's heart rate over
/// its zones, zone minutes, steps per hour, breath, temperatures, SpO2 and skin conductance, and
/// with more than one day a week view with the rolling vitality score.
public struct DayReport: Sendable {
    /// The days to show (the report day last; earlier days feed the week view).
    public var dataset: ExportDataset
    /// The report day, `YYYY-MM-DD`.
    public var date: String
    /// Rolling vitality scores of the week view's days (may be empty).
    public var scores: [WeekScore]

    /// Creates a report.
    public init(dataset: ExportDataset, date: String, scores: [WeekScore] = []) {
        self.dataset = dataset
        self.date = date
        self.scores = scores
    }

    /// The page.
    /// - Throws: ``ExportError/nothingToExport(_:)`` when the dataset has no summary for ``date``.
    public func html() throws(ExportError) -> String {
        guard let day = dataset.days.first(where: { $0.summary.date == date }) else {
            throw .nothingToExport("no daily summary for \(date) of \(dataset.device); pick a day the database holds (bracelet export --format csv lists them)")
        }
        let s = day.summary, clock = dataset.clock
        let hours = Double(s.dayEnd - s.dayStart) / 3600
        let model = dataset.model.map { " (\($0))" } ?? ""
        var body = "<header><h1>Day report \(date)</h1><p class=\"meta\">Bracelet \(SVG.escape(dataset.device))\(model) · "
            + "times in \(SVG.escape(clock.zoneName(at: s.dayStart)))"
        if clock.offsetSeconds(at: s.dayStart) != clock.offsetSeconds(at: s.dayEnd) {
            body += " to UTC\(ExportClock.offsetText(clock.offsetSeconds(at: s.dayEnd)))"
        }
        body += " · day of \(SVG.f(hours)) h"
        let standing = s.coverage.status(at: dataset.now)
        if !standing.isComplete {
            body += ", \(duration(s.coverage.recordedMinutes * 60)) recorded: <strong>\(standing.label) day</strong>"
                + " (\(standing == .notOver ? "not over yet" : "under \(Int(DayCoverage.minimumRecordedFraction * 100)) % recorded"); not scored)"
        }
        body += "</p></header>"
        body += sleepSection(day)
        body += "<h2>Heart rate <span class=\"meta\">\(summaryLine(s.bpm))</span></h2>"
        body += DayCharts.heartRate(s, clock: clock, slotSeconds: dataset.slotSeconds)
        let t = s.bpm.zoneThresholds
        let zoneRanges = ["< \(t.t50)", "\(t.t50)–\(t.t60 - 1)", "\(t.t60)–\(t.t70 - 1)", "\(t.t70)–\(t.t80 - 1)", "\(t.t80)–\(t.t90 - 1)", "≥ \(t.t90)"]
        body += Self.legend([("line hr", "heart rate")]
            + (0..<6).map { ("z\($0)", "\(DayCharts.zoneNames[$0]) \(zoneRanges[$0]) bpm") }
            + [("gap", "no reading ≥ 10 min (not worn)")])
        body += "<div class=\"row\"><div><h2>Zone minutes <span class=\"meta\">minutes (share of the day's readings)</span></h2>\(DayCharts.zoneBars(s.bpm, width: 350))</div>"
        body += "<div><h2>Steps per hour <span class=\"meta\">\(s.steps.stepCount.map { "\($0) steps" } ?? "no step data")</span></h2>"
            + DayCharts.stepsPerHour(s, clock: clock, width: 360) + Self.legend([("step-hour", "steps in the hour")]) + "</div></div>"
        body += smallCharts(s)
        if dataset.days.count > 1 { body += weekSection() }
        return Self.page(title: "Bracelet day report \(date) \(dataset.device)", body: body)
    }

    func summaryLine(_ b: BPMSummary) -> String {
        guard let average = b.averageBPM else { return "no reading that day" }
        var parts = ["average \(average) bpm"]
        if let lo = b.minDayBPM, let hi = b.maxDayBPM { parts.append("range \(lo)–\(hi)") }
        if let r = b.dailyRestingBPM { parts.append("resting \(r)") }
        return parts.joined(separator: " · ")
    }

    func sleepSection(_ day: ExportDay) -> String {
        let clock = dataset.clock
        // A night is filed under the day it ends: its start is usually the evening before, so every
        // start and stop carries its date.
        let others = day.sleepSessions.filter { !$0.isMainSleep }.map { s in
            "\(s.truncated ? "cut by the start or end of the data" : "nap") \(clock.dateAndClockTime(s.startSession))–"
                + "\(clock.dateAndClockTime(s.stopSession)) (\(duration(s.totalSleepDuration)) asleep)"
        }
        let otherLine = others.isEmpty ? "" : "<p class=\"meta\">Other sleep filed under this day: \(others.joined(separator: "; "))</p>"
        guard let session = day.mainSleep else { return "<h2>Night</h2><p class=\"meta\">No main sleep ended this day.</p>" + otherLine }
        var out = "<h2>Night <span class=\"meta\">\(clock.dateAndClockTime(session.startSession)) – \(clock.dateAndClockTime(session.stopSession))</span></h2><div class=\"row\"><div>"
        out += DayCharts.hypnogram(session, clock: clock, width: 455)
        out += Self.legend(DayCharts.stageRows.map { ("s\($0.rawValue)", $0.label) }) + "</div>"
        let totals: [(String, String)] = [
            ("Time in bed", duration(session.timeInBed)), ("Asleep", duration(session.totalSleepDuration)),
            ("Light", duration(session.totalSecsLight)), ("Deep", duration(session.totalSecsDeep)),
            ("REM", duration(session.totalSecsREM)), ("Awake", duration(session.totalSecsAwake)),
            ("Efficiency", session.sleepEfficiency.map { "\($0) %" } ?? "–"),
        ]
        let transitions: [(String, Int, String, Int)] = [
            ("Light → Deep", session.totalLightToDeepTransitions, "Deep → Light", session.totalDeepToLightTransitions),
            ("Light → REM", session.totalLightToREMTransitions, "REM → Light", session.totalREMToLightTransitions),
            ("Deep → REM", session.totalDeepToREMTransitions, "REM → Deep", session.totalREMToDeepTransitions),
            ("Sleep → Awake", session.totalSleepToAwakeTransitions, "Awake → Sleep", session.totalAwakeToSleepTransitions),
        ]
        out += "<div><table class=\"totals\"><caption>Session totals</caption>"
            + totals.map { "<tr><th>\($0.0)</th><td>\($0.1)</td></tr>" }.joined() + "</table>"
        out += "<table class=\"totals\"><caption>Transitions</caption>"
            + transitions.map { "<tr><th>\($0.0)</th><td>\($0.1)</td><th class=\"pad\">\($0.2)</th><td>\($0.3)</td></tr>" }.joined()
            + "</table></div></div>"
        return out + otherLine
    }

    func smallCharts(_ s: DailySummary) -> String {
        let clock = dataset.clock, slot = dataset.slotSeconds
        let breath = Series(name: "Breath rate", cssClass: "breath", samples: s.breath.slots.map { ($0.intervalDate, Double($0.brpm)) }, slotSeconds: slot)
        let skin = Series(name: "Skin", cssClass: "skin", samples: s.bodyTemp.slots.map { ($0.intervalDate, $0.temp) }, slotSeconds: slot)
        let core = Series(name: "Core", cssClass: "core", samples: s.coreBodyTemperature.slots.map { ($0.intervalDate, $0.coreBodyTemperature) }, slotSeconds: slot)
        /// A chart's heading (with its unit), the chart and the legend of the series it draws.
        func chart(_ heading: String, _ unit: String, id: String, title: String, _ series: [Series]) -> String {
            let drawn = series.filter { !$0.samples.isEmpty }
            return "<div><h2>\(heading) <span class=\"meta\">\(unit)</span></h2>"
                + DayCharts.small(id: id, title: title, unit: unit, series: series, day: s, clock: clock, width: 355)
                + (drawn.isEmpty ? "" : Self.legend(drawn.map { ("line \($0.cssClass)", $0.name.lowercased()) })) + "</div>"
        }
        var charts = [
            chart("Breath rate", "breaths/min", id: "breath", title: "Breath rate", [breath]),
            chart("Temperature", "°C", id: "temperature", title: "Skin and core temperature", [skin, core]),
        ]
        if dataset.model?.uppercased() != "V1" {
            let spo2 = Series(name: "SpO2", cssClass: "spo2", samples: s.spo2.slots.map { ($0.intervalDate, Double($0.spo2)) }, slotSeconds: slot)
            let eda = Series(name: "Skin conductance", cssClass: "eda", samples: s.emography.slots.map { ($0.date, $0.stressLevelSkinConductance) }, slotSeconds: slot)
            charts.append(chart("SpO2", "%", id: "spo2", title: "SpO2", [spo2]))
            charts.append(chart("Skin conductance (EDA)", "µS", id: "eda", title: "Skin conductance", [eda]))
        }
        var out = ""
        for pair in stride(from: 0, to: charts.count, by: 2) {
            out += "<div class=\"row\">" + charts[pair..<min(pair + 2, charts.count)].joined() + "</div>"
        }
        return out
    }

    /// A legend: one swatch per colour (the class that draws it) with what it means.
    static func legend(_ items: [(swatch: String, label: String)]) -> String {
        "<p class=\"legend\">" + items.map { "<span><i class=\"sw \($0.swatch)\"></i>\(SVG.escape($0.label))</span>" }.joined(separator: " ") + "</p>"
    }

    func weekSection() -> String {
        let scoreByDate = Dictionary(scores.map { ($0.date, $0) }, uniquingKeysWith: { a, _ in a })
        var out = "<h2>Week</h2><table class=\"week\"><thead><tr><th>Day</th><th>Recorded</th><th>Sleep</th><th>Steps</th><th>HR avg</th>"
            + "<th>Resting</th><th>RMSSD</th><th>Breath</th><th>Skin °C</th><th>SpO2</th><th>Vitality</th>"
            + VitalityPillar.allCases.map { "<th>\($0.label.components(separatedBy: "/").first ?? $0.label)</th>" }.joined() + "</tr></thead><tbody>"
        func cell(_ text: String?) -> String { "<td>\(text ?? "–")</td>" }
        for day in dataset.days {
            let s = day.summary
            let score = scoreByDate[s.date]
            let standing = s.coverage.status(at: dataset.now)
            let recorded = duration(s.coverage.recordedMinutes * 60) + (standing.isComplete ? "" : ", \(standing.label)")
            out += "<tr\(s.date == date ? " class=\"today\"" : "")><th>\(s.date)</th>" + cell(recorded)
                + cell(day.mainSleep.map { duration($0.totalSleepDuration) }) + cell(s.steps.stepCount.map(String.init))
                + cell(s.bpm.averageBPM.map(String.init)) + cell(s.bpm.dailyRestingBPM.map(String.init))
                + cell(s.sleepHRV?.rmssdMs.map { "\(Int($0.rounded())) ms" }) + cell(s.breath.averageBreath.map(String.init))
                + cell(s.bodyTemp.averageTemp.map { SVG.f($0) }) + cell(s.spo2.averageSpo2.map { "\($0) %" })
                + cell(score?.total.map { String(Int($0.rounded())) })
                + VitalityPillar.allCases.map { p in cell(score?.pillars[p].map { String(Int($0.rounded())) }) }.joined() + "</tr>"
        }
        out += "</tbody></table><p class=\"meta\">Recorded: time with any reading; partial: under \(Int(DayCoverage.minimumRecordedFraction * 100)) % "
            + "of the day recorded, ongoing: not over when the report was made (neither counts in a score). "
            + "Vitality: 7-day rolling score (0–100) ending on each day, with its pillars; – where a window has too little data.</p>"
        return out
    }

    func duration(_ seconds: Int) -> String {
        let minutes = (seconds + 30) / 60
        return minutes < 60 ? "\(minutes) min" : minutes % 60 == 0 ? "\(minutes / 60) h" : "\(minutes / 60) h \(minutes % 60) min"
    }

    /// The colours of areas (zones, the not-worn span, sleep stages, step bars): each fills its SVG
    /// shapes and its legend swatch, so a legend can never show another colour than the chart.
    /// Okabe–Ito colours for stages, one light-to-mid blue ramp for the zones; the darkest zone keeps
    /// the zone names (#1a1a1a) at WCAG AA contrast.
    static let areaColours: [(cssClass: String, colour: String)] = [
        ("z0", "#f1f5fa"), ("z1", "#dde8f4"), ("z2", "#c6d8ee"), ("z3", "#abc6e6"), ("z4", "#8fb2dc"), ("z5", "#6f9bd1"),
        ("gap", "#d9d9d9"), ("s1", "#D55E00"), ("s4", "#CC79A7"), ("s2", "#56B4E9"), ("s3", "#0072B2"), ("step-hour", "#009E73"),
    ]

    /// The colours of curves (and their legend lines); a dashed one is told apart without colour.
    static let lineColours: [(cssClass: String, colour: String, dashed: Bool)] = [
        ("hr", "#000000", false), ("breath", "#009E73", false), ("skin", "#E69F00", false), ("core", "#0072B2", true),
        ("spo2", "#0072B2", false), ("eda", "#CC79A7", false),
    ]

    /// The page around `body`, with the print and colour rules (labels carry the meaning too, so
    /// no colour pair has to be told apart by hue alone).
    static func page(title: String, body: String) -> String {
        let areas = areaColours.map { ".\($0.cssClass) { fill: \($0.colour); } .sw.\($0.cssClass) { background: \($0.colour); }" }.joined(separator: "\n")
        let lines = lineColours.map {
            ".\($0.cssClass) { stroke: \($0.colour);\($0.dashed ? " stroke-dasharray: 4 2;" : "") } "
                + ".sw.line.\($0.cssClass) { border-top: 2px \($0.dashed ? "dashed" : "solid") \($0.colour); }"
        }.joined(separator: "\n")
        return """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><title>\(SVG.escape(title))</title>
        <style>
        @page { size: A4 portrait; margin: 9mm; }
        html { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
        body { font: 10.5px/1.3 "DejaVu Sans", "Liberation Sans", Arial, sans-serif; color: #1a1a1a; background: #ffffff; width: 720px; margin: 8px auto; }
        h1 { font-size: 17px; margin: 0; } h2 { font-size: 12px; margin: 6px 0 2px; }
        .meta { color: #555555; font-weight: normal; margin: 0; }
        .row { display: flex; gap: 10px; align-items: flex-start; }
        svg { display: block; overflow: visible; } svg text { font-size: 9px; fill: #333333; }
        .axis line { stroke: #c8c8c8; stroke-width: 0.6; } .axis line.grid { stroke: #dddddd; stroke-width: 0.5; }
        .lane { fill: #f6f6f6; stroke: #fff; }
        .transition { stroke: #555; stroke-width: 0.7; }
        .bar { stroke: #333; stroke-width: 0.5; } svg text.zone-label { fill: #1a1a1a; font-size: 8px; }
        svg text.unit { fill: #333333; font-style: italic; }
        .curve { fill: none; stroke-width: 1.3; stroke-linejoin: round; }
        \(areas)
        \(lines)
        .legend { margin: 1px 0 0; color: #1a1a1a; font-size: 9px; line-height: 1.4; }
        .legend span { white-space: nowrap; margin-right: 4px; }
        .sw { display: inline-block; width: 12px; height: 8px; margin-right: 3px; vertical-align: -1px; box-shadow: inset 0 0 0 0.5px #666; }
        .sw.line { height: 0; box-shadow: none; vertical-align: 3px; width: 16px; }
        table { border-collapse: collapse; font-size: 10px; }
        .totals { margin-left: 8px; white-space: nowrap; } .totals caption { text-align: left; font-weight: bold; font-size: 10px; }
        .totals .pad { padding-left: 10px; }
        .totals th { text-align: left; font-weight: normal; color: #444; padding: 1px 8px 1px 0; } .totals td { text-align: right; }
        .week { width: 100%; white-space: nowrap; font-size: 9.5px; } .week th, .week td { border-bottom: 1px solid #ddd; padding: 2px 3px; text-align: right; }
        .week th:first-child { text-align: left; } .week .today { background: #eef3f8; font-weight: bold; }
        </style></head>
        <body>
        \(body)
        </body></html>

        """
    }
}
