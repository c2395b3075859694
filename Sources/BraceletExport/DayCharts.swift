import BraceletSummaries
import Foundation

/// Horizontal time scale of a chart: `start..<end` (Unix seconds) onto `left...left+width` pixels,
/// with hour ticks labelled in local clock time (a daylight-saving day has 23 or 25 of them).
struct TimeAxis {
    let start: Int64
    let end: Int64
    let left: Double
    let width: Double
    let clock: ExportClock

    func x(_ t: Int64) -> Double { left + Double(t - start) / Double(max(1, end - start)) * width }

    /// Tick lines and labels for every `every`-th hour boundary, whole hours of local time.
    func ticks(top: Double, bottom: Double, every: Int) -> String {
        var out = "<g class=\"axis\">"
        var t = start + Int64((3600 - Int(((start + Int64(clock.offsetSeconds(at: start))) % 3600 + 3600) % 3600)) % 3600)
        var index = 0
        while t <= end {
            let x = SVG.f(self.x(t))
            out += "<line x1=\"\(x)\" y1=\"\(SVG.f(top))\" x2=\"\(x)\" y2=\"\(SVG.f(bottom))\"/>"
            if index % every == 0 {
                out += "<text x=\"\(x)\" y=\"\(SVG.f(bottom + 11))\" text-anchor=\"middle\">\(clock.clockTime(t))</text>"
            }
            t += 3600
            index += 1
        }
        return out + "</g>"
    }
}

/// Vertical value scale: `low...high` onto `bottom...top` pixels, its ends and ticks on multiples
/// of a round step (1, 2 or 5 × 10^n), so the labels read 40, 60, 80 and never 40, 109, 177.
struct ValueAxis {
    let low: Double
    let high: Double
    /// Distance between two ticks.
    let step: Double
    let top: Double
    let bottom: Double

    /// The axis over at least `low...high` in at most `intervals` steps: the smallest round step
    /// that does it, the ends moved out to multiples of it.
    init(covering low: Double, _ high: Double, top: Double, bottom: Double, intervals: Int) {
        let count = Double(max(1, intervals))
        var step = Self.roundStep(atLeast: max(high - low, 1e-9) / count)
        while (high / step).rounded(.up) - (low / step).rounded(.down) > count { step = Self.roundStep(atLeast: step * 1.5) }
        self.low = (low / step).rounded(.down) * step
        self.high = max((high / step).rounded(.up), (low / step).rounded(.down) + 1) * step
        self.step = step
        self.top = top
        self.bottom = bottom
    }

    /// The smallest of 1, 2, 5 × 10^n that is at least `x` (> 0).
    static func roundStep(atLeast x: Double) -> Double {
        let magnitude = pow(10, log10(x).rounded(.down))
        for m in [1.0, 2, 5] where m * magnitude >= x * (1 - 1e-9) { return m * magnitude }
        return 10 * magnitude
    }

    /// The tick values, `low` to `high` by `step`.
    var ticks: [Double] {
        (0...Int(((high - low) / step).rounded())).map { low + Double($0) * step }
    }

    /// A tick value with as many decimals as the step needs (none for 1, 2, 5, 10 ...).
    func label(_ value: Double) -> String {
        let decimals = step >= 1 ? 0 : Int((-log10(step) - 1e-9).rounded(.up))
        return String(format: "%.\(decimals)f", value + 0)  // + 0: no "-0"
    }

    func y(_ v: Double) -> Double { bottom - (min(max(v, low), high) - low) / max(0.001, high - low) * (bottom - top) }

    /// A label and a faint grid line at every tick, from `left` to `right`, and the unit above the
    /// labels (every value axis says what it counts).
    func labels(left: Double, right: Double, unit: String) -> String {
        var out = "<g class=\"axis\">"
        for v in ticks {
            let y = SVG.f(self.y(v))
            out += "<line class=\"grid\" x1=\"\(SVG.f(left))\" y1=\"\(y)\" x2=\"\(SVG.f(right))\" y2=\"\(y)\"/>"
        }
        out += "</g>"
        for v in ticks {
            out += "<text class=\"tick\" x=\"\(SVG.f(left - 3))\" y=\"\(SVG.f(y(v) + 3))\" text-anchor=\"end\">\(label(v))</text>"
        }
        return out + "<text class=\"unit\" x=\"2\" y=\"\(SVG.f(top - 5))\">\(SVG.escape(unit))</text>"
    }
}

/// The charts of one day.
enum DayCharts {
    static let width = 720.0
    static let left = 34.0

    static func open(_ id: String, width: Double, height: Double, title: String, description: String) -> String {
        "<svg id=\"\(id)\" width=\"\(SVG.f(width))\" height=\"\(SVG.f(height))\" viewBox=\"0 0 \(SVG.f(width)) \(SVG.f(height))\" role=\"img\" aria-labelledby=\"\(id)-t \(id)-d\">"
            + "<title id=\"\(id)-t\">\(SVG.escape(title))</title><desc id=\"\(id)-d\">\(SVG.escape(description))</desc>"
    }

    // MARK: Hypnogram

    static let stageRows: [SleepStage] = [.awake, .rem, .light, .deep]

    /// Stages over clock time, awake on top: one segment per stage run, a vertical line at each
    /// transition between adjacent runs.
    static func hypnogram(_ session: SleepSession, clock: ExportClock, width: Double) -> String {
        let height = 104.0, top = 4.0, rowHeight = 20.0
        let axis = TimeAxis(start: session.startSession, end: session.stopSession, left: 44, width: width - 52, clock: clock)
        let runs = session.stageRuns
        var out = open("hypnogram", width: width, height: height,
                       title: "Hypnogram of the main sleep, \(clock.clockTime(session.startSession)) to \(clock.clockTime(session.stopSession))",
                       description: "\(runs.count) stage runs; awake on top, then REM, light and deep sleep.")
        for (row, stage) in stageRows.enumerated() {
            let y = top + Double(row) * rowHeight
            out += "<rect class=\"lane\" x=\"\(SVG.f(axis.left))\" y=\"\(SVG.f(y))\" width=\"\(SVG.f(axis.width))\" height=\"\(SVG.f(rowHeight))\"/>"
            out += "<text x=\"\(SVG.f(axis.left - 4))\" y=\"\(SVG.f(y + 13))\" text-anchor=\"end\">\(stage.label)</text>"
        }
        out += axis.ticks(top: top, bottom: top + 4 * rowHeight, every: 1)
        func rowY(_ stage: SleepStage) -> Double { top + Double(stageRows.firstIndex(of: stage) ?? 0) * rowHeight + 3 }
        var previous: StageRun?
        for run in runs {
            if let previous, previous.end == run.start {
                let x = SVG.f(axis.x(run.start))
                let (a, b) = (rowY(previous.stage) + 7, rowY(run.stage) + 7)
                out += "<line class=\"transition\" x1=\"\(x)\" y1=\"\(SVG.f(min(a, b)))\" x2=\"\(x)\" y2=\"\(SVG.f(max(a, b)))\"/>"
            }
            out += "<rect class=\"stage-run s\(run.stage.rawValue)\" x=\"\(SVG.f(axis.x(run.start)))\" y=\"\(SVG.f(rowY(run.stage)))\" width=\"\(SVG.f(max(0.8, axis.x(run.end) - axis.x(run.start))))\" height=\"14\">"
                + "<title>\(run.stage.label) \(clock.clockTime(run.start))–\(clock.clockTime(run.end))</title></rect>"
            previous = run
        }
        return out + "</svg>"
    }

    // MARK: Heart rate

    /// The names of the six heart-rate zones, lowest first.
    static let zoneNames = ["Rest", "Warm-up", "Fat burn", "Endurance", "Performance", "Max"]

    /// The day's heart-rate curve over the six zone bands, with the spans without any reading
    /// shaded as not worn. The zone names are drawn last, so a shaded span never hides them.
    static func heartRate(_ day: DailySummary, clock: ExportClock, slotSeconds: Int) -> String {
        let height = 158.0, top = 14.0, bottom = 136.0
        let axis = TimeAxis(start: day.dayStart, end: day.dayEnd, left: left, width: width - left - 6, clock: clock)
        let t = day.bpm.zoneThresholds
        let values = ValueAxis(covering: Double(min(40, (day.bpm.minDayBPM ?? 40) - 5)), Double(max(t.t90 + 15, (day.bpm.maxDayBPM ?? 0) + 5)),
                               top: top, bottom: bottom, intervals: 8)
        let hours = Double(day.dayEnd - day.dayStart) / 3600
        var out = open("heart-rate", width: width, height: height,
                       title: "Heart rate over the day (\(SVG.f(hours)) h), bpm, with the six heart-rate zones",
                       description: "Average \(day.bpm.averageBPM.map(String.init) ?? "unknown") bpm; shaded spans had no reading (bracelet not worn).")
        let bounds = [values.low, Double(t.t50), Double(t.t60), Double(t.t70), Double(t.t80), Double(t.t90), values.high]
        var names = ""
        for i in 0..<6 {
            let (y0, y1) = (values.y(bounds[i + 1]), values.y(bounds[i]))
            out += "<rect class=\"zone z\(i)\" x=\"\(SVG.f(axis.left))\" y=\"\(SVG.f(y0))\" width=\"\(SVG.f(axis.width))\" height=\"\(SVG.f(y1 - y0))\"><title>\(zoneNames[i]) zone</title></rect>"
            if y1 - y0 >= 9 {
                names += "<text class=\"zone-label\" x=\"\(SVG.f(axis.left + axis.width - 3))\" y=\"\(SVG.f(y0 + 9))\" text-anchor=\"end\">\(zoneNames[i])</text>"
            }
        }
        out += gaps(day.bpm.slots.map(\.intervalDate), axis: axis, top: top, bottom: bottom, slotSeconds: slotSeconds, minimum: 600)
        out += values.labels(left: axis.left, right: axis.left + axis.width, unit: "bpm")
        out += axis.ticks(top: top, bottom: bottom, every: 3)
        let series = Series(name: "Heart rate", cssClass: "hr", samples: day.bpm.slots.map { ($0.intervalDate, Double($0.bpm)) }, slotSeconds: slotSeconds)
        out += curve(series, axis: axis, values: values)
        return out + names + "</svg>"
    }

    /// Hatched spans of at least `minimum` seconds without a sample (no reading: not worn).
    static func gaps(_ times: [Int64], axis: TimeAxis, top: Double, bottom: Double, slotSeconds: Int, minimum: Int64) -> String {
        var out = ""
        var cursor = axis.start
        for t in times.sorted() + [axis.end] {
            if t - cursor >= minimum {
                out += "<rect class=\"gap\" x=\"\(SVG.f(axis.x(cursor)))\" y=\"\(SVG.f(top))\" width=\"\(SVG.f(axis.x(t) - axis.x(cursor)))\" height=\"\(SVG.f(bottom - top))\"><title>No reading \(axis.clock.clockTime(cursor))–\(axis.clock.clockTime(t))</title></rect>"
            }
            cursor = max(cursor, t + Int64(slotSeconds))
        }
        return out
    }

    /// One path per series: sub-paths break where samples are missing.
    static func curve(_ series: Series, axis: TimeAxis, values: ValueAxis) -> String {
        guard !series.samples.isEmpty else { return "" }
        let d = SVG.path(series.points(x: axis.x, y: values.y))
        return "<path class=\"curve \(series.cssClass)\" d=\"\(d)\"><title>\(SVG.escape(series.name))</title></path>"
    }

    /// A small chart of one or two series over the day, or a line saying there is no data.
    static func small(id: String, title: String, unit: String, series: [Series], day: DailySummary, clock: ExportClock, width: Double) -> String {
        let all = series.flatMap { $0.samples.map(\.value) }
        let height = 86.0, top = 12.0, bottom = 72.0
        guard let lo = all.min(), let hi = all.max() else {
            return open(id, width: width, height: 24, title: "\(title): no data", description: "No reading that day.")
                + "<text x=\"4\" y=\"15\">no reading that day</text></svg>"
        }
        let pad = max(0.5, (hi - lo) * 0.1)
        let axis = TimeAxis(start: day.dayStart, end: day.dayEnd, left: 34, width: width - 40, clock: clock)
        let values = ValueAxis(covering: lo >= 0 ? max(0, lo - pad) : lo - pad, hi + pad, top: top, bottom: bottom, intervals: 4)
        let names = series.filter { !$0.samples.isEmpty }.map(\.name).joined(separator: " and ")
        var out = open(id, width: width, height: height, title: "\(title) over the day, \(unit)",
                       description: "\(names): \(SVG.f(lo))–\(SVG.f(hi)) \(unit).")
        out += values.labels(left: axis.left, right: axis.left + axis.width, unit: unit)
        out += axis.ticks(top: top, bottom: bottom, every: 6)
        for s in series { out += curve(s, axis: axis, values: values) }
        return out + "</svg>"
    }

    // MARK: Bars

    /// Minutes per heart-rate zone as horizontal bars, labelled with minutes and share.
    static func zoneBars(_ bpm: BPMSummary, width: Double) -> String {
        let minutes = [bpm.durationRestZone, bpm.durationWarmUpZone, bpm.durationFatBurnZone, bpm.durationEnduranceZone,
                       bpm.durationPerformanceZone, bpm.durationMaxZone]
        let shares = [bpm.percentageRestZone, bpm.percentageWarmUpZone, bpm.percentageFatBurnZone, bpm.percentageEnduranceZone,
                      bpm.percentagePerformanceZone, bpm.percentageMaxZone]
        let names = zoneNames
        let most = Double(max(1, minutes.compactMap { $0 }.max() ?? 1))
        var out = open("zones", width: width, height: 100, title: "Minutes in each heart-rate zone",
                       description: zip(names, minutes).map { "\($0): \($1.map { "\($0) min" } ?? "no data")" }.joined(separator: ", "))
        for i in 0..<6 {
            let y = 3.0 + Double(i) * 16
            out += "<text x=\"70\" y=\"\(SVG.f(y + 11))\" text-anchor=\"end\">\(names[i])</text>"
            guard let m = minutes[i] else { continue }
            let w = Double(m) / most * (width - 150)
            out += "<rect class=\"bar z\(i)\" x=\"74\" y=\"\(SVG.f(y))\" width=\"\(SVG.f(max(0.5, w)))\" height=\"14\"><title>\(names[i]): \(m) min</title></rect>"
            out += "<text x=\"\(SVG.f(78 + w))\" y=\"\(SVG.f(y + 11))\">\(m) min\(shares[i].map { " (\($0) %)" } ?? "")</text>"
        }
        return out + "</svg>"
    }

    /// Steps per local clock hour: one bar per hour that has step data (a 0-step hour is a flat
    /// bar; an hour without data has none).
    static func stepsPerHour(_ day: DailySummary, clock: ExportClock, width: Double) -> String {
        var hours: [Int: Int] = [:]
        for slot in day.steps.slots {
            guard let steps = slot.stepCount else { continue }
            hours[Int((slot.intervalDate - day.dayStart) / 3600), default: 0] += steps
        }
        let count = Int((day.dayEnd - day.dayStart + 3599) / 3600)
        let height = 100.0, top = 12.0, bottom = 82.0
        let axis = TimeAxis(start: day.dayStart, end: day.dayEnd, left: 34, width: width - 40, clock: clock)
        let values = ValueAxis(covering: 0, Double(max(100, hours.values.max() ?? 0)), top: top, bottom: bottom, intervals: 4)
        var out = open("steps", width: width, height: height, title: "Steps per hour (\(count) hours)",
                       description: "\(day.steps.stepCount.map { "\($0) steps" } ?? "No step data") that day.")
        out += values.labels(left: axis.left, right: axis.left + axis.width, unit: "steps/h")
        out += axis.ticks(top: top, bottom: bottom, every: 6)
        let barWidth = axis.width / Double(count)
        for (hour, steps) in hours.sorted(by: { $0.key < $1.key }) where hour >= 0 && hour < count {
            let start = day.dayStart + Int64(hour) * 3600
            let y = values.y(Double(steps))
            out += "<rect class=\"step-hour\" x=\"\(SVG.f(axis.x(start) + 0.5))\" y=\"\(SVG.f(y))\" width=\"\(SVG.f(max(0.5, barWidth - 1)))\" height=\"\(SVG.f(max(0.5, bottom - y)))\"><title>\(clock.clockTime(start)): \(steps) steps</title></rect>"
        }
        return out + "</svg>"
    }
}
