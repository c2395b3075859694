import BraceletDecoder
import BraceletStore
import BraceletSummaries
import BraceletVitality
import Foundation
import Testing
@testable import BraceletExport

/// A two-participant overview of `days` days ending 2026-03-10, made at 2026-03-10 12:00 UTC: P-1's
/// days are whole, worn a little less each day, the first one recorded, never worn, and the last not
/// over; P-2 has an incomplete day, a missing one, a low battery held open and a window that does not score.
/// Its sinks: a webhook that works but made dead letters, a JSON Lines file failing. From the fleet
/// (`origin`), the sinks are gateway gw_ward3's, reported at 11:30.
func studyFixture(days: Int = 7, origin: StudyOverview.Origin = .gateway) throws -> StudyOverview {
    let to = try #require(LocalDate(iso: "2026-03-10"))
    let from = to.adding(days: -(days - 1))
    let now = Int64(to.dayNumber) * 86_400 + 12 * 3_600
    func coverage(_ date: LocalDate, recorded: Int, worn: Int) -> DayCoverage {
        let end = Int64(date.dayNumber + 1) * 86_400
        return DayCoverage(dayEnd: end, dayMinutes: 1_440, recordedMinutes: recorded, wornMinutes: worn, dayIsOver: now >= end)
    }
    let dates = StudyOverview.dates(from: from, to: to)
    let first = dates.map { date -> StudyDay in
        let index = date.dayNumber - from.dayNumber
        return StudyDay(date: date, coverage: coverage(date, recorded: 1_440, worn: index == 0 ? 0 : 1_440 - index * 150), now: now)
    }
    var second = dates.map { StudyDay(date: $0, coverage: coverage($0, recorded: 1_440, worn: 1_300), now: now) }
    second[second.count - 2] = StudyDay(missing: dates[dates.count - 2], dayEnd: Int64(dates[dates.count - 2].dayNumber + 1) * 86_400, now: now)
    second[0] = StudyDay(date: dates[0], coverage: coverage(dates[0], recorded: 600, worn: 550), now: now)
    let window = StudyScoring(days: [], end: to.adding(days: -1), now: now, age: 40)
    let health = StudyDeviceHealth(state: "synced", lastHeardAt: (now - 3_600) * 1_000, lastSyncAt: (now - 7_200) * 1_000, battery: 11,
                                   batteryChange: -13, backlogBytes: 2_048, openEvents: ["battery_low", "not_heard"])
    return StudyOverview(from: from, to: to, now: now, source: "gateway database g.db", participants: [
        StudyParticipant(user: "P-1", device: "SN000001", model: "V2", days: first, scoring: window),
        StudyParticipant(user: "P-2", device: "SN000002", model: "V1", days: second, scoring: window, health: health),
    ].map { participant in
        var row = participant
        if origin == .fleet { row.lastDeliveryAt = (now - 5_400) * 1_000 }
        return row
    }, sinks: [
        StudySink(name: "webhook https://example.org/in", pending: 3, delivered: 40, dead: 2,
                  health: SinkHealth(sink: "webhook https://example.org/in", state: .ok, lastAttemptAt: (now - 60) * 1_000,
                                     lastSuccessAt: (now - 60) * 1_000, failuresInARow: 0, lastError: nil)),
        StudySink(name: "jsonl /data/out.jsonl", pending: 3, delivered: 12, dead: 0,
                  health: SinkHealth(sink: "jsonl /data/out.jsonl", state: .failing, lastAttemptAt: (now - 30) * 1_000,
                                     lastSuccessAt: (now - 9_000) * 1_000, failuresInARow: 4, lastError: "No space left on device <disk>")),
    ].map { sink in
        var reported = sink
        if origin == .fleet { (reported.gateway, reported.reportedAt) = ("gw_ward3", (now - 1_800) * 1_000) }
        return reported
    }, origin: origin)
}

@Suite struct StudyPageTests {
    func count(_ needle: String, in text: String) -> Int { text.components(separatedBy: needle).count - 1 }

    @Test func theContrastFormulaGivesWCAGsKnownRatios() {
        #expect(abs(Contrast.ratio("#000000", "#ffffff") - 21) < 0.001)
        #expect(abs(Contrast.ratio("#767676", "#ffffff") - 4.54) < 0.01)  // the lightest grey that passes AA on white
        #expect(abs(Contrast.ratio("#ffffff", "#ffffff") - 1) < 0.001)
        #expect(Contrast.ratio("#777777", "#ffffff") < 4.5)
        #expect(Contrast.luminance("white") == nil)
    }

    /// Every colour pair the page draws text with is at WCAG AA (4.5 : 1), and the page's stylesheet
    /// draws exactly these pairs: each swatch's rule, and the page's own text colours.
    @Test func everyTextOnEveryColourIsAtWCAGAA() throws {
        let page = StudyPage(overview: try studyFixture()).html()
        for pair in StudyPalette.pairs {
            let ratio = Contrast.ratio(pair.text, pair.background)
            #expect(ratio >= Contrast.minimumText, "\(pair.what): \(pair.text) on \(pair.background) is \(ratio):1")
        }
        for swatch in StudyPalette.worn.map(\.swatch) + [StudyPalette.missing] {
            #expect(page.contains(".\(swatch.cssClass) { background: \(swatch.background); color: \(swatch.text); }"), "\(swatch.cssClass)")
        }
        #expect(page.contains("color: \(StudyPalette.body); background: \(StudyPalette.page);"))
        #expect(page.contains(".meta { color: \(StudyPalette.meta);"))
        #expect(page.contains(".attn { color: \(StudyPalette.attention);") && page.contains(".good { color: \(StudyPalette.good);"))
        #expect(page.contains(".study thead th { background: #eeeeee;") && StudyPalette.pairs.contains { $0.background == "#eeeeee" })
    }

    /// Each cell's colour is its worn share's, with its numbers, its state as data and a mark; the
    /// legend names every colour and mark drawn.
    @Test func cellsCarryTheirNumbersStateAndMarkAndTheLegendEveryColour() throws {
        let page = StudyPage(overview: try studyFixture()).html()
        // P-1: never worn (w0), 1290 and 1140 (w3: 89.6 and 79.2 %), 990 and 840 (w2), 690 (w1), and today (not over) 540 so far.
        #expect(page.contains("<td class=\"d w0\" data-date=\"2026-03-04\" data-state=\"complete\" data-worn=\"0\" data-recorded=\"1440\"><b>0</b><br><small>1440</small></td>"))
        #expect(page.contains("<td class=\"d w3\" data-date=\"2026-03-05\" data-state=\"complete\" data-worn=\"1290\" data-recorded=\"1440\">"))
        #expect(page.contains("<td class=\"d w1\" data-date=\"2026-03-09\" data-state=\"complete\" data-worn=\"690\""))
        #expect(page.contains("<td class=\"d w1 open\" data-date=\"2026-03-10\" data-state=\"not_over\" data-worn=\"540\" data-recorded=\"1440\"><b>540</b><span class=\"mk\">…</span>"))
        // P-2: incomplete, missing.
        #expect(page.contains("data-date=\"2026-03-04\" data-state=\"incomplete\" data-worn=\"550\" data-recorded=\"600\"><b>550</b><span class=\"mk\">*</span>"))
        #expect(page.contains("<td class=\"d missing\" data-date=\"2026-03-09\" data-state=\"missing\">–</td>"))
        for swatch in StudyPalette.worn.map(\.swatch) + [StudyPalette.missing] {
            #expect(count("<i class=\"sw \(swatch.cssClass)\">", in: page) == 1, "legend entry of \(swatch.cssClass)")
        }
        #expect(page.contains("<i class=\"sw mark\">*</i>incomplete") && page.contains("<i class=\"sw open\">…</i>not over yet"))
    }

    /// The top: counts, the sink with its dead letters, who needs a look and why; the row's health
    /// columns: times with their exact UTC value, the battery with its change, open events named.
    @Test func theTopAndTheHealthColumnsSayWhoNeedsALookAndWhy() throws {
        let overview = try studyFixture()
        let page = StudyPage(overview: overview).html()
        #expect(overview.needingAttention == 2 && overview.onTrack == 0)
        #expect(page.contains("<p class=\"count good\" id=\"on-track\"><b>0</b> on track</p>"))
        #expect(page.contains("<p class=\"count attn\" id=\"attention\"><b>2</b> need attention</p>"))
        // Each sink with its state: the webhook works (its dead letters want a requeue), the file fails.
        #expect(page.contains("<tr class=\"sink\" data-state=\"ok\"><td>webhook https://example.org/in</td><td class=\"n\">3</td>"
                              + "<td class=\"n\">40</td><td class=\"n\">2</td><td>ok</td><td><span class=\"attn\">! 2 dead letter(s): requeue them</span></td></tr>"))
        #expect(page.contains("<tr class=\"sink\" data-state=\"failing\"><td>jsonl /data/out.jsonl</td><td class=\"n\">3</td><td class=\"n\">12</td>"
                              + "<td class=\"n\">0</td><td class=\"attn\">failing</td><td><span class=\"attn\">! 4 failed attempt(s) in a row</span>: "
                              + "No space left on device &lt;disk&gt;</td></tr>"))
        #expect(!page.contains("<th>Gateway</th>") && !page.contains("<th>Reported</th>"))
        #expect(page.contains("<li><b>P-2</b> SN000002: battery low; silent; last 7 days not scorable (2026-03-03 to 2026-03-09: "
                              + "sleep duration on 0 of 4 days; steps on 0 of 4 days; HRV or resting heart rate on 0 of 4 days); no data on 2026-03-09</li>"))
        #expect(page.contains("<time datetime=\"2026-03-10T11:00:00.000Z\">1 h ago</time>"))
        #expect(page.contains("data-battery=\"11\">11 % <small>↓13</small></td>"))
        #expect(page.contains("data-events=\"battery_low not_heard\">battery low, silent</td>"))
        #expect(page.contains("<td class=\"n\">2 kB</td>"))
        #expect(page.contains("<td colspan=\"5\" class=\"meta\">not enrolled at this gateway</td>"))
        for forbidden in ["<script", "src=", "href=", "url(", "@import"] { #expect(!page.contains(forbidden)) }
        #expect(page.contains("@page { size: A4 landscape; margin: 8mm; }"))
    }

    /// From the fleet: the same columns as a gateway's page, the sinks under the gateway that
    /// reported them with when, and a device without a gateway's status shows its last delivery.
    @Test func theFleetsPageHasTheGatewaysColumnsAndSaysWhoReportedWhen() throws {
        let gateway = StudyPage(overview: try studyFixture()).html()
        let fleet = StudyPage(overview: try studyFixture(origin: .fleet)).html()
        func rows(_ page: String) -> [String] { page.components(separatedBy: "<tr class=\"participant").dropFirst().map { String($0.prefix { $0 != "\n" }) } }
        #expect(rows(fleet).count == 2)
        #expect(rows(fleet)[1] == rows(gateway)[1], "the row with a status is the gateway's")
        #expect(rows(fleet)[0].contains("<td colspan=\"5\" class=\"meta\">no status from a gateway; last delivery "
                                        + "<time datetime=\"2026-03-10T10:30:00.000Z\">1 h ago</time></td>"))
        #expect(fleet.contains("<tr><th>Gateway</th><th>Sink</th><th>Pending</th><th>Delivered</th><th>Dead</th><th>State</th><th>Health</th><th>Reported</th></tr>"))
        #expect(fleet.contains("<tr class=\"sink\" data-state=\"failing\"><td>gw_ward3</td><td>jsonl /data/out.jsonl</td>"))
        #expect(fleet.contains("<td><time datetime=\"2026-03-10T11:30:00.000Z\">30 min ago</time></td></tr>"))
        #expect(fleet.contains("as each gateway last reported them"))
        var silent = try studyFixture(origin: .fleet)
        silent.sinks = []
        #expect(StudyPage(overview: silent).html().contains("No gateway has reported its status to this fleet database yet."))
    }

    /// A page longer than two weeks continues in tables of earlier days, the latest first with the
    /// health columns; every day has one cell.
    @Test func aLongPageIsCutIntoTwoWeekTables() throws {
        let page = StudyPage(overview: try studyFixture(days: 30)).html()
        #expect(count("<table class=\"study\">", in: page) == 3)
        #expect(page.contains("<h2>Earlier days: 2026-02-11 to 2026-02-24</h2>") && page.contains("<h2>Earlier days: 2026-02-09 to 2026-02-10</h2>"))
        #expect(count("<th class=\"time\">Last heard</th>", in: page) == 1)
        #expect(count("<td class=\"d ", in: page) == 2 * 30)
    }

    /// The CSV: a line per participant and day with the page's numbers, unknown values empty.
    @Test func theCSVHasALinePerParticipantAndDayWithThePagesNumbers() throws {
        let overview = try studyFixture()
        let lines = StudyCSV.text(overview).components(separatedBy: "\r\n").filter { !$0.isEmpty }
        #expect(lines.count == 1 + 2 * 7)
        #expect(lines[0] == StudyCSV.header.joined(separator: ","))
        #expect(lines[1].hasPrefix("P-1,SN000001,V2,2026-03-04,complete,1440,0,1440,,,,,,,,false,2026-03-03,2026-03-09,"))
        #expect(lines[7].hasPrefix("P-1,SN000001,V2,2026-03-10,not_over,1440,540,1440,"))
        #expect(lines[8] == "P-2,SN000002,V1,2026-03-04,incomplete,600,550,1440,2026-03-10T11:00:00.000Z,2026-03-10T10:00:00.000Z,,11,-13,2048,"
                + "battery_low;not_heard,false,2026-03-03,2026-03-09,sleep duration on 0 of 4 days; steps on 0 of 4 days; "
                + "HRV or resting heart rate on 0 of 4 days,battery low;silent;last 7 days not scorable;no data on 2026-03-09")
        #expect(lines[13].hasPrefix("P-2,SN000002,V1,2026-03-09,missing,,,,"))
    }
}
