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
        body += " · day of \(SVG.f(hours)) h</p></header>"
        body += sleepSection(day)
        body += "<h2>Heart rate <span class=\"meta\">\(summaryLine(s.bpm))</span></h2>"
        body += DayCharts.heartRate(s, clock: clock, slotSeconds: dataset.slotSeconds)
        body += "<div class=\"row\"><div><h2>Zone minutes</h2>\(DayCharts.zoneBars(s.bpm, width: 350))</div>"
        body += "<div><h2>Steps per hour <span class=\"meta\">\(s.steps.stepCount.map { "\($0) steps" } ?? "no step data")</span></h2>"
            + DayCharts.stepsPerHour(s, clock: clock, width: 360) + "</div></div>"
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
        guard let session = day.mainSleep else { return "<h2>Night</h2><p class=\"meta\">No main sleep ended this day.</p>" }
        let clock = dataset.clock
        var out = "<h2>Night <span class=\"meta\">\(clock.clockTime(session.startSession))–\(clock.clockTime(session.stopSession))</span></h2><div class=\"row\">"
        out += DayCharts.hypnogram(session, clock: clock, width: 455)
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
        return out
    }

    func smallCharts(_ s: DailySummary) -> String {
        let clock = dataset.clock, slot = dataset.slotSeconds
        let breath = Series(name: "Breath rate", cssClass: "breath", samples: s.breath.slots.map { ($0.intervalDate, Double($0.brpm)) }, slotSeconds: slot)
        let skin = Series(name: "Skin", cssClass: "skin", samples: s.bodyTemp.slots.map { ($0.intervalDate, $0.temp) }, slotSeconds: slot)
        let core = Series(name: "Core", cssClass: "core", samples: s.coreBodyTemperature.slots.map { ($0.intervalDate, $0.coreBodyTemperature) }, slotSeconds: slot)
        var charts = [
            ("Breath rate", DayCharts.small(id: "breath", title: "Breath rate", unit: "breaths/min", series: [breath], day: s, clock: clock, width: 355)),
            ("Temperature" + [skin, core].filter { !$0.samples.isEmpty }.map { " <span class=\"key \($0.cssClass)\">\($0.name.lowercased())</span>" }.joined(),
             DayCharts.small(id: "temperature", title: "Skin and core temperature", unit: "°C", series: [skin, core], day: s, clock: clock, width: 355)),
        ]
        if dataset.model?.uppercased() != "V1" {
            let spo2 = Series(name: "SpO2", cssClass: "spo2", samples: s.spo2.slots.map { ($0.intervalDate, Double($0.spo2)) }, slotSeconds: slot)
            let eda = Series(name: "Skin conductance", cssClass: "eda", samples: s.emography.slots.map { ($0.date, $0.stressLevelSkinConductance) }, slotSeconds: slot)
            charts.append(("SpO2", DayCharts.small(id: "spo2", title: "SpO2", unit: "%", series: [spo2], day: s, clock: clock, width: 355)))
            charts.append(("Skin conductance (EDA)", DayCharts.small(id: "eda", title: "Skin conductance", unit: "µS", series: [eda], day: s, clock: clock, width: 355)))
        }
        var out = ""
        for pair in stride(from: 0, to: charts.count, by: 2) {
            out += "<div class=\"row\">" + charts[pair..<min(pair + 2, charts.count)].map { "<div><h2>\($0.0)</h2>\($0.1)</div>" }.joined() + "</div>"
        }
        return out
    }

    func weekSection() -> String {
        let scoreByDate = Dictionary(scores.map { ($0.date, $0) }, uniquingKeysWith: { a, _ in a })
        var out = "<h2>Week</h2><table class=\"week\"><thead><tr><th>Day</th><th>Hours</th><th>Sleep</th><th>Steps</th><th>HR avg</th>"
            + "<th>Resting</th><th>RMSSD</th><th>Breath</th><th>Skin °C</th><th>SpO2</th><th>Vitality</th>"
            + VitalityPillar.allCases.map { "<th>\($0.label.components(separatedBy: "/").first ?? $0.label)</th>" }.joined() + "</tr></thead><tbody>"
        func cell(_ text: String?) -> String { "<td>\(text ?? "–")</td>" }
        for day in dataset.days {
            let s = day.summary
            let score = scoreByDate[s.date]
            out += "<tr\(s.date == date ? " class=\"today\"" : "")><th>\(s.date)</th>" + cell(SVG.f(Double(s.dayEnd - s.dayStart) / 3600))
                + cell(day.mainSleep.map { duration($0.totalSleepDuration) }) + cell(s.steps.stepCount.map(String.init))
                + cell(s.bpm.averageBPM.map(String.init)) + cell(s.bpm.dailyRestingBPM.map(String.init))
                + cell(s.sleepHRV?.rmssdMs.map { "\(Int($0.rounded())) ms" }) + cell(s.breath.averageBreath.map(String.init))
                + cell(s.bodyTemp.averageTemp.map { SVG.f($0) }) + cell(s.spo2.averageSpo2.map { "\($0) %" })
                + cell(score?.total.map { String(Int($0.rounded())) })
                + VitalityPillar.allCases.map { p in cell(score?.pillars[p].map { String(Int($0.rounded())) }) }.joined() + "</tr>"
        }
        out += "</tbody></table><p class=\"meta\">Vitality: 7-day rolling score (0–100) ending on each day, with its pillars; – where a window has too little data.</p>"
        return out
    }

    func duration(_ seconds: Int) -> String {
        let minutes = (seconds + 30) / 60
        return minutes >= 60 ? "\(minutes / 60) h \(minutes % 60) min" : "\(minutes) min"
    }

    /// The page around `body`, with the print and colour rules (Okabe–Ito colours for curves and
    /// stages, one light-to-dark blue ramp for the zones, so every colour pair stays apart for
    /// colour-vision deficiency; labels carry the meaning too).
    static func page(title: String, body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><title>\(SVG.escape(title))</title>
        <style>
        @page { size: A4 portrait; margin: 9mm; }
        html { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
        body { font: 10.5px/1.3 "DejaVu Sans", "Liberation Sans", Arial, sans-serif; color: #1a1a1a; width: 720px; margin: 8px auto; }
        h1 { font-size: 17px; margin: 0; } h2 { font-size: 12px; margin: 7px 0 2px; }
        .meta { color: #555; font-weight: normal; margin: 0; }
        .row { display: flex; gap: 10px; align-items: flex-start; }
        svg { display: block; overflow: visible; } svg text { font-size: 9px; fill: #333; }
        .axis line { stroke: #c8c8c8; stroke-width: 0.6; }
        .lane { fill: #f6f6f6; stroke: #fff; }
        .stage-run.s1 { fill: #D55E00; } .stage-run.s4 { fill: #CC79A7; } .stage-run.s2 { fill: #56B4E9; } .stage-run.s3 { fill: #0072B2; }
        .transition { stroke: #555; stroke-width: 0.7; }
        .z0 { fill: #eef3f8; } .z1 { fill: #d9e6f2; } .z2 { fill: #bfd4ea; } .z3 { fill: #9dbddf; } .z4 { fill: #77a1cf; } .z5 { fill: #4f7fba; }
        .bar { stroke: #333; stroke-width: 0.5; } .zone-label { fill: #4a5a6a; font-size: 8px; }
        .gap { fill: #e3e3e3; }
        .curve { fill: none; stroke-width: 1.3; stroke-linejoin: round; }
        .hr { stroke: #000; } .breath { stroke: #009E73; } .skin { stroke: #E69F00; } .core { stroke: #0072B2; stroke-dasharray: 4 2; }
        .spo2 { stroke: #0072B2; } .eda { stroke: #CC79A7; }
        .step-hour { fill: #009E73; }
        .key { display: inline-block; padding: 0 4px; color: #fff; border-radius: 2px; font-size: 9px; font-weight: normal; }
        .key.skin { background: #B07A00; } .key.core { background: #0072B2; }
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
