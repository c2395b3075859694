import BraceletDecoder
import BraceletVitality

/// The study page: one self-contained HTML page (inline CSS, no script, nothing loaded from the
/// network) that prints on A4 landscape. On top the participants on track and needing attention,
/// each sink's deliveries and state (from the fleet: each gateway's, as it last reported them) and
/// who needs a look with why; then a table with a row per participant
/// device and a cell per local day, coloured by the share of the day worn, with the minutes worn
/// and recorded in it and a mark for an incomplete, missing or not-yet-over day, and per row last
/// heard, last sync, battery with its change, open operator events, backlog and whether the last
/// seven days score. Pages longer than ``blockDays`` days continue in tables of earlier days.
public struct StudyPage: Sendable {
    /// What the page shows.
    public var overview: StudyOverview

    /// Days per table: two weeks fit A4 landscape with the numbers readable.
    public static let blockDays = 14

    /// A page of `overview`.
    public init(overview: StudyOverview) {
        self.overview = overview
    }

    /// The page.
    public func html() -> String {
        var page = ""
        write { page += $0 }
        return page
    }

    /// Hands the page to `out` in pieces, a table row at a time, so that a long study's page is
    /// never held whole (13 MB for 1,000 participants x 90 days).
    public func write(to out: (String) -> Void) {
        let o = overview
        out(Self.head(title: "Study at a glance \(o.from) to \(o.to)"))
        out("<header><h1>Study at a glance</h1><p class=\"meta\">\(o.from) to \(o.to) · \(o.participants.count) participant device(s) · "
            + "made \(UTCTime.iso8601(unixSeconds: o.now)) from \(SVG.escape(o.source))</p></header>")
        out(top())
        out(legend())
        let dates = o.dates
        // The latest days first, with the health columns; earlier days after, in blocks.
        var blocks: [ArraySlice<LocalDate>] = []
        var end = dates.count
        while end > 0 {
            blocks.append(dates[max(0, end - Self.blockDays)..<end])
            end -= Self.blockDays
        }
        for (index, block) in blocks.enumerated() {
            if index > 0, let first = block.first, let last = block.last { out("<h2>Earlier days: \(first) to \(last)</h2>") }
            table(block, withHealth: index == 0, to: out)
        }
        out("\n</body></html>\n")
    }

    /// Counts, sinks and the list of participants needing attention.
    func top() -> String {
        let o = overview
        var out = "<section class=\"top\"><div class=\"counts\"><p class=\"count good\" id=\"on-track\"><b>\(o.onTrack)</b> on track</p>"
            + "<p class=\"count attn\" id=\"attention\"><b>\(o.needingAttention)</b> need attention</p></div>"
        out += sinkTable()
        out += "</section>"
        let calls = o.participants.filter { !$0.attention.isEmpty }
        if !calls.isEmpty {
            out += "<h2>Needing attention</h2><ul class=\"calls\">"
            for p in calls {
                var reasons = p.attention
                if let i = reasons.firstIndex(of: "last 7 days not scorable"), let why = p.scoring.reason {
                    reasons[i] += " (\(p.scoring.start) to \(p.scoring.end): \(why))"
                }
                out += "<li><b>\(SVG.escape(p.user ?? "no user"))</b> \(SVG.escape(p.device)): \(SVG.escape(reasons.joined(separator: "; ")))</li>"
            }
            out += "</ul>"
        }
        return out
    }

    /// Each sink's deliveries and state; from the fleet, per gateway as it last reported them.
    func sinkTable() -> String {
        let o = overview
        let fleet = o.origin == .fleet
        var out = ""
        if fleet {
            out += "<p class=\"meta note\">From the fleet database: the days the gateways delivered; last heard, battery, operator events, "
                + "backlog and delivery as each gateway last reported them (<i>Reported</i>). A device no gateway reported shows its last delivery.</p>"
            if o.sinks.isEmpty { return out + "<p class=\"meta note\">No gateway has reported its status to this fleet database yet.</p>" }
        }
        out += "<table class=\"sinks\"><caption>Delivery</caption><tr>\(fleet ? "<th>Gateway</th>" : "")<th>Sink</th><th>Pending</th>"
            + "<th>Delivered</th><th>Dead</th><th>State</th><th>Health</th>\(fleet ? "<th>Reported</th>" : "")</tr>"
        for s in o.sinks {
            let state = s.health?.state.rawValue
            out += "<tr class=\"sink\" data-state=\"\(state ?? "")\">\(fleet ? "<td>\(SVG.escape(s.gateway ?? "–"))</td>" : "")"
                + "<td>\(SVG.escape(s.name))</td><td class=\"n\">\(s.pending)</td><td class=\"n\">\(s.delivered)</td><td class=\"n\">\(s.dead)</td>"
                + "<td\(s.health.map { $0.state != .ok } ?? false ? " class=\"attn\"" : "")>\(state ?? "not tried")</td>"
                + "<td>\(Self.sinkHealth(s))</td>\(fleet ? "<td>\(time(s.reportedAt, never: "–"))</td>" : "")</tr>"
        }
        return out + "</table>"
    }

    /// What a sink's row says of its health: failed attempts with the last error, dead letters to requeue, or ok.
    static func sinkHealth(_ s: StudySink) -> String {
        var parts: [String] = []
        if let h = s.health, h.state != .ok {
            parts.append("<span class=\"attn\">! \(h.failuresInARow) failed attempt(s) in a row</span>: \(SVG.escape(h.lastError ?? "no reason recorded"))")
        }
        if s.dead > 0 { parts.append("<span class=\"attn\">! \(s.dead) dead letter(s): requeue them</span>") }
        return parts.isEmpty ? "ok" : parts.joined(separator: "; ")
    }

    /// The legend: every colour and mark of the table, and how to read a cell.
    func legend() -> String {
        var out = "<div class=\"legend\"><span class=\"how\">Each day: <b>minutes worn</b> over minutes recorded.</span>"
        for swatch in StudyPalette.worn.map(\.swatch) + [StudyPalette.missing] {
            out += "<span><i class=\"sw \(swatch.cssClass)\">\(swatch.cssClass == "missing" ? "–" : "")</i>\(swatch.meaning)</span>"
        }
        out += "<span><i class=\"sw mark\">*</i>incomplete: under 90 % of the day recorded</span>"
        out += "<span><i class=\"sw open\">…</i>not over yet: so far</span>"
        out += "<span><i class=\"sw mark\">!</i>needs attention</span>"
        out += "<span class=\"how\">Battery: percent at the last connection, its change over the record's last 24 h. "
            + "7 days: whether <code>bracelet score</code> scores the last seven days that are over.</span></div>"
        return out
    }

    /// One table of `dates`, a row per participant, to `out`.
    func table(_ dates: ArraySlice<LocalDate>, withHealth: Bool, to out: (String) -> Void) {
        var head = "<table class=\"study\"><thead><tr><th class=\"who\">Participant</th><th class=\"dev\">Device</th><th class=\"model\">Model</th>"
        for date in dates {
            head += "<th class=\"day\">\(Self.weekday(date))<br>\(String(date.description.dropFirst(5)))</th>"
        }
        if withHealth {
            head += "<th class=\"time\">Last heard</th><th class=\"time\">Last sync</th><th class=\"battery\">Battery</th>"
                + "<th class=\"events\">Open events</th><th class=\"backlog\">Backlog</th><th class=\"score\">7 days</th>"
        }
        out(head + "</tr></thead><tbody>")
        for p in overview.participants {
            let attention = !p.attention.isEmpty
            var row = "<tr class=\"participant\(attention ? " attn-row" : "")\" data-device=\"\(SVG.escape(p.device))\">"
                + "<th class=\"who\">\(attention ? "<span class=\"attn\">!</span> " : "")\(SVG.escape(p.user ?? "–"))</th>"
                + "<td class=\"dev\">\(SVG.escape(p.device))</td><td>\(SVG.escape(p.model ?? "–"))</td>"
            let byDate = Dictionary(p.days.map { ($0.date, $0) }, uniquingKeysWith: { a, _ in a })
            for date in dates { row += byDate[date].map(Self.cell) ?? "<td class=\"d missing\">–</td>" }
            if withHealth { row += healthColumns(p) }
            out(row + "</tr>")
        }
        out("</tbody></table>")
    }

    /// A day's cell: its colour and numbers, its state as a class and a mark, its values as data.
    static func cell(_ day: StudyDay) -> String {
        var attributes = "data-date=\"\(day.date)\" data-state=\"\(day.state.rawValue)\""
        guard let worn = day.wornMinutes, let recorded = day.recordedMinutes, let fraction = day.wornFraction else {
            return day.state == .notOver ? "<td class=\"d open\" \(attributes)>…</td>" : "<td class=\"d missing\" \(attributes)>–</td>"
        }
        attributes += " data-worn=\"\(worn)\" data-recorded=\"\(recorded)\""
        let mark = switch day.state {
        case .incomplete: "<span class=\"mk\">*</span>"
        case .notOver: "<span class=\"mk\">…</span>"
        case .complete, .missing: ""
        }
        let classes = "d \(StudyPalette.swatch(wornFraction: fraction).cssClass)\(day.state == .notOver ? " open" : "")"
        return "<td class=\"\(classes)\" \(attributes)><b>\(worn)</b>\(mark)<br><small>\(recorded)</small></td>"
    }

    /// Last heard to 7 days, from the gateway (from the fleet: as the device's gateway last reported them).
    func healthColumns(_ p: StudyParticipant) -> String {
        guard let h = p.health else {
            let why = overview.origin == .fleet ? "no status from a gateway; last delivery \(time(p.lastDeliveryAt, never: "never"))"
                : "not enrolled at this gateway"
            return "<td colspan=\"5\" class=\"meta\">\(why)</td>" + scoringCell(p)
        }
        var battery = h.battery.map { "\($0) %" } ?? "–"
        if let change = h.batteryChange { battery += " <small>\(change > 0 ? "↑" : change < 0 ? "↓" : "→")\(abs(change))</small>" }
        let low = h.openEvents.contains("battery_low")
        let events = h.openEvents.map { StudyDeviceHealth.label(ofEvent: $0) }.joined(separator: ", ")
        return "<td>\(time(h.lastHeardAt, never: "never"))</td><td>\(time(h.lastSyncAt, never: "never"))</td>"
            + "<td class=\"n\(low ? " attn" : "")\" data-battery=\"\(h.battery.map(String.init) ?? "")\">\(battery)</td>"
            + "<td class=\"events\(events.isEmpty ? "" : " attn")\" data-events=\"\(h.openEvents.joined(separator: " "))\">\(events.isEmpty ? "–" : events)</td>"
            + "<td class=\"n\">\(h.backlogBytes.map(Self.bytes) ?? "–")</td>" + scoringCell(p)
    }

    func scoringCell(_ p: StudyParticipant) -> String {
        "<td class=\"\(p.scoring.scorable ? "good" : "attn")\" data-scorable=\"\(p.scoring.scorable)\">\(p.scoring.scorable ? "yes" : "no")</td>"
    }

    /// A time as how long ago, with the exact UTC time in its `datetime`.
    func time(_ milliseconds: Int64?, never: String) -> String {
        guard let milliseconds else { return never }
        let seconds = max(0, overview.now - milliseconds / 1_000)
        let ago = seconds < 3_600 ? "\(seconds / 60) min" : seconds < 48 * 3_600 ? "\(seconds / 3_600) h" : "\(seconds / 86_400) d"
        return "<time datetime=\"\(UTCTime.iso8601(unixMilliseconds: milliseconds))\">\(ago) ago</time>"
    }

    /// Bytes for people: B, kB or MB (10^3, 10^6).
    static func bytes(_ count: Int) -> String {
        count < 1_000 ? "\(count) B" : count < 1_000_000 ? "\(count / 1_000) kB" : "\(SVG.f(Double(count) / 1_000_000)) MB"
    }

    /// Two letters of the weekday.
    static func weekday(_ date: LocalDate) -> String {
        // 1970-01-01 was a Thursday.
        ["Th", "Fr", "Sa", "Su", "Mo", "Tu", "We"][((date.dayNumber % 7) + 7) % 7]
    }

    /// The page's head and the opening of its body, with the print rules: A4 landscape, colours
    /// printed as drawn, the table header repeated on each printed page and no row cut in two.
    static func head(title: String) -> String {
        let p = StudyPalette.self
        return """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><title>\(SVG.escape(title))</title>
        <style>
        @page { size: A4 landscape; margin: 8mm; }
        html { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
        body { font: 10px/1.3 "DejaVu Sans", "Liberation Sans", Arial, sans-serif; color: \(p.body); background: \(p.page); width: 1040px; margin: 6px auto; }
        h1 { font-size: 16px; margin: 0; } h2 { font-size: 11.5px; margin: 8px 0 3px; }
        .meta { color: \(p.meta); margin: 0; } code { font-size: 9.5px; }
        .top { display: flex; gap: 16px; align-items: flex-start; margin-top: 6px; }
        .counts { display: flex; gap: 10px; } .count { margin: 0; font-size: 11px; border: 1px solid #bbbbbb; padding: 3px 8px; white-space: nowrap; }
        .count b { font-size: 18px; margin-right: 4px; }
        .good { color: \(p.good); } .attn { color: \(p.attention); font-weight: bold; }
        table { border-collapse: collapse; }
        .sinks caption { text-align: left; font-weight: bold; } .sinks th, .sinks td { padding: 1px 6px; border-bottom: 1px solid #dddddd; text-align: left; }
        .sinks th { background: #eeeeee; }
        .n { text-align: right; }
        .calls { margin: 0 0 4px; padding-left: 16px; columns: 2; column-gap: 24px; } .calls li { break-inside: avoid; }
        .legend { display: flex; flex-wrap: wrap; gap: 3px 12px; margin: 6px 0; font-size: 9px; align-items: center; }
        .legend span { display: inline-flex; align-items: center; gap: 3px; }
        .sw { display: inline-block; width: 16px; height: 12px; border: 1px solid #767676; font-style: normal; text-align: center; line-height: 12px; font-size: 9px; }
        .sw.mark { border-color: transparent; font-weight: bold; } .sw.open { border-style: dashed; }
        .study { width: 100%; table-layout: fixed; font-size: 9px; page-break-inside: auto; margin-bottom: 6px; }
        .study .who { width: 70px; } .study .dev { width: 80px; } .study .model { width: 30px; } .study th.day { width: 34px; }
        .study .time { width: 58px; } .study .battery { width: 62px; } .study .events { width: 90px; } .study .backlog { width: 48px; }
        .study .score { width: 40px; }
        .study .who, .study .dev, .study td.events { white-space: normal; overflow-wrap: anywhere; }
        .study thead { display: table-header-group; } .study tr { page-break-inside: avoid; break-inside: avoid; }
        .study th, .study td { box-sizing: border-box; border: 1px solid #ffffff; padding: 1px 3px; white-space: nowrap; }
        .study thead th { background: #eeeeee; font-weight: bold; text-align: center; }
        .study th.who { text-align: left; } .study tbody th { font-weight: bold; background: \(p.page); }
        .study tbody tr { border-bottom: 1px solid #dddddd; } .study tr.attn-row th.who { border-left: 3px solid \(p.attention); }
        .study td.d { width: 34px; text-align: center; line-height: 1.15; padding: 1px 1px; }
        .study td.d small { font-size: 8px; } .study td.d .mk { font-weight: bold; }
        .study td.open { outline: 1px dashed #767676; outline-offset: -2px; } .study td.open b { font-style: italic; }
        \(p.css)
        .study td.d.open:not([data-worn]) { background: \(p.page); color: \(p.meta); }
        </style></head>
        <body>

        """
    }
}
