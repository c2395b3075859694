import BraceletDecoder
import BraceletGateway
import BraceletSimulator
import BraceletStore
import BraceletVitality
import Foundation
import Testing

/// 2026-06-15 00:00 in Europe/Amsterdam (CEST, UTC+2), Unix seconds.
private let june15 = Int64(1_781_474_400)

/// One line of `report --study --format csv`, by column name.
private typealias CSVLine = [String: String]

/// The lines of a CSV text with a header (no quoted line breaks: the study CSV has none).
private func csvLines(_ text: String) -> [CSVLine] {
    var lines = text.split(separator: "\r\n").map(String.init)
    guard !lines.isEmpty else { return [] }
    let header = fields(lines.removeFirst())
    return lines.map { Dictionary(uniqueKeysWithValues: zip(header, fields($0))) }
}

/// The fields of one CSV line (RFC 4180 quoting).
private func fields(_ line: String) -> [String] {
    var out: [String] = [], field = "", quoted = false
    var characters = Array(line)[...]
    while let c = characters.popFirst() {
        if quoted {
            if c == "\"" {
                if characters.first == "\"" { field.append("\""); characters.removeFirst() } else { quoted = false }
            } else { field.append(c) }
        } else if c == "\"" { quoted = true } else if c == "," { out.append(field); field = "" } else { field.append(c) }
    }
    return out + [field]
}

/// The `data-*` attributes of every day cell of a page, by device and date.
private func pageCells(_ html: String) throws -> [String: [String: String]] {
    var cells: [String: [String: String]] = [:]
    let rows = html.components(separatedBy: "<tr class=\"participant").dropFirst()
    for row in rows {
        let device = try #require(attribute("data-device", in: row))
        for cell in row.components(separatedBy: "<td class=\"d ").dropFirst() {
            let tag = String(cell.prefix { $0 != ">" })
            guard let date = attribute("data-date", in: tag) else { continue }
            var values = ["state": attribute("data-state", in: tag) ?? ""]
            values["worn"] = attribute("data-worn", in: tag)
            values["recorded"] = attribute("data-recorded", in: tag)
            cells[device + " " + date] = values
        }
    }
    return cells
}

private func attribute(_ name: String, in text: String) -> String? {
    guard let start = text.range(of: name + "=\"") else { return nil }
    return String(text[start.upperBound...].prefix { $0 != "\"" })
}

/// The study page's three simulated bracelets through a real gateway: one charged slowly at the
/// morning shower (off the wrist half of 2026-06-15), one that falls silent, one with a low battery.
/// ``run()`` syncs each twice at 2026-06-17 10:00 local, stops the silent one, and runs the gateway
/// again 30 hours later until the other two synced again and the silent one raised `not_heard`.
/// Every property is set once in `init`, so it may be run on a thread of its own.
final class StudyScenario: @unchecked Sendable {
    let folder: String
    let db: String
    let store: Store
    let clock: SharedClock
    let halfWorn: ServedBracelet
    let silent: ServedBracelet
    let weak: ServedBracelet

    init() throws {
        folder = try temporaryFolder()
        // 2026-06-17 10:00 local, then 2026-06-18 16:00: 30 hours later, the silent one not heard since.
        let first = june15 + 2 * 86_400 + 10 * 3_600, second = june15 + 3 * 86_400 + 16 * 3_600
        clock = SharedClock(reading: first)
        // Below 45 % at the first morning, charged at 0.1 %/min: 13 hours off the wrist on 2026-06-15.
        let slowCharge = BatteryBehaviour(initialPercent: 30, drainPercentPerHour: 0.55, chargeBelowPercent: 45, chargePercentPerMinute: 0.1)
        let low = BatteryBehaviour(initialPercent: 12, drainPercentPerHour: 0, chargeBelowPercent: 0, chargePercentPerMinute: 1)
        let clock = self.clock
        halfWorn = try ServedBracelet(directory: folder, history: try PhysiologyModel.simulatedHistory(
            model: .v2, serial: "GWSR0001", days: 4, seed: 11, endingAt: second + 3_600, battery: slowCharge), clock: { clock.current.nowSeconds() })
        silent = try ServedBracelet(directory: folder, history: try PhysiologyModel.simulatedHistory(
            model: .v1, serial: "GWSR0002", days: 3, seed: 12, endingAt: second + 3_600), clock: { clock.current.nowSeconds() })
        weak = try ServedBracelet(directory: folder, history: try PhysiologyModel.simulatedHistory(
            model: .v2, serial: "GWSR0003", days: 6, seed: 13, endingAt: second + 3_600, battery: low), clock: { clock.current.nowSeconds() })
        db = folder + "/g.db"
        store = try Store(path: db)
        for (served, user) in [(halfWorn, "P-01"), (silent, "P-02"), (weak, "P-03")] {
            _ = try store.enrol(GatewayEnrolment(endpoint: "unix:" + served.path, user: user, timeZone: "Europe/Amsterdam", age: 40))
        }
    }

    /// The two gateway runs.
    func run() {
        let (a, b, c) = (halfWorn, silent, weak)
        var gateway = RunningGateway(store: store, clock: clock.current, intervalSeconds: 1)
        #expect(gateway.wait { [a, b, c].allSatisfy { gateway.completedSyncs("unix:" + $0.path) >= 2 } }, "every bracelet synced twice")
        gateway.stop()
        b.stop()
        clock.set(reading: june15 + 3 * 86_400 + 16 * 3_600)
        gateway = RunningGateway(store: store, clock: clock.current, intervalSeconds: 1)
        #expect(gateway.wait {
            [a, c].allSatisfy { gateway.completedSyncs("unix:" + $0.path) >= 2 }
                && ((try? writtenEvents(self.store))?.contains { $0.event == "not_heard" && $0.device == "GWSR0002" } ?? false)
        }, "the two in range synced again, and the silent one raised not_heard")
        gateway.stop()
    }

    /// Stops the bracelets still served and removes the folder.
    func end() {
        halfWorn.stop()
        weak.stop()
        try? FileManager.default.removeItem(atPath: folder)
    }
}

@Suite(.serialized) struct StudyReportTests {
    /// Three simulated bracelets through a real gateway (``StudyScenario``). The study page and its
    /// CSV (`report --study`, the built binary) say for each device and day what `summarize --db`
    /// says of that day's coverage, `score --db --end` of its last seven days, and `gateway status
    /// --json` of its last sync, last heard, battery and backlog; made at the gateway's own time the
    /// same page marks today not over, the silent bracelet and the low battery as open operator
    /// events, and counts who needs attention.
    @Test func theStudyPageSaysWhatSummarizeScoreAndGatewayStatusSay() throws {
        let scenario = try StudyScenario()
        defer { scenario.end() }
        scenario.run()
        let (folder, db, store, clock) = (scenario.folder, scenario.db, scenario.store, scenario.clock)
        #expect(!scenario.halfWorn.history.isWorn(at: june15 + 12 * 3_600) && scenario.halfWorn.history.isWorn(at: june15 + 3 * 3_600)
                && scenario.halfWorn.history.isWorn(at: june15 + 22 * 3_600),
                "GWSR0001 is off the wrist (charging) at noon on 2026-06-15 and worn that night and evening")

        // The page and the CSV from the built binary, now (every day of June is over).
        let csvRun = try bracelet(["report", "--study", "--db", db, "--from", "2026-06-12", "--to", "2026-06-18", "--format", "csv"])
        #expect(csvRun.status == 0, "\(csvRun.err)")
        let lines = csvLines(csvRun.out)
        #expect(lines.count == 3 * 7, "one line per device and day")
        let page = folder + "/study.html"
        let htmlRun = try bracelet(["report", "--study", "--db", db, "--from", "2026-06-12", "--to", "2026-06-18", "-o", page])
        #expect(htmlRun.status == 0, "\(htmlRun.err)")
        let html = try String(contentsOfFile: page, encoding: .utf8)
        let cells = try pageCells(html)
        #expect(cells.count == lines.count, "a cell per CSV line")
        #expect(!html.contains("<script") && !html.contains("http://") && !html.contains("https://"))
        #expect(html.contains("@page { size: A4 landscape"))

        // Each day: summarize --db's coverage of that day, the cell's and the CSV's numbers.
        for line in lines {
            let device = try #require(line["device"]), date = try #require(line["date"])
            let summary = try bracelet(["summarize", "--db", db, "--device", device, "--day", date, "--format", "json"])
            let cell = try #require(cells[device + " " + date], "\(device) \(date) has a cell")
            #expect(cell["state"] == line["state"])
            if summary.status == 0 {
                let document = try #require(try JSONSerialization.jsonObject(with: Data(summary.out.utf8)) as? [String: Any])
                let day = try #require((document["days"] as? [[String: Any]])?.first)
                let coverage = try #require(day["coverage"] as? [String: Any])
                let recorded = "\(coverage["recordedMinutes"] ?? "")", worn = "\(coverage["wornMinutes"] ?? "")"
                #expect(line["recorded_min"] == recorded && line["worn_min"] == worn && line["day_min"] == "\(coverage["dayMinutes"] ?? "")",
                        "\(device) \(date): CSV \(line["recorded_min"] ?? "") / \(line["worn_min"] ?? ""), summarize \(recorded) / \(worn)")
                #expect(cell["recorded"] == recorded && cell["worn"] == worn, "\(device) \(date): page \(cell)")
                let complete = coverage["isComplete"] as? Bool == true
                #expect(line["state"] == (complete ? "complete" : "incomplete"), "\(device) \(date)")
            } else {
                #expect(summary.err.contains("no data on \(date)"), "\(summary.err)")
                #expect(line["state"] == "missing" && line["recorded_min"] == "" && cell["worn"] == nil, "\(device) \(date)")
            }
        }
        // The day charged at the shower: recorded whole, worn less than half.
        let charged = try #require(lines.first { $0["device"] == "GWSR0001" && $0["date"] == "2026-06-15" })
        #expect(charged["state"] == "complete")
        #expect((Int(charged["worn_min"] ?? "") ?? 1_440) < 720 && (Int(charged["worn_min"] ?? "") ?? 0) > 300, "\(charged)")
        // The silent one's last day is cut off at its last sync; the next is missing.
        #expect(lines.first { $0["device"] == "GWSR0002" && $0["date"] == "2026-06-17" }?["state"] == "incomplete")
        #expect(lines.first { $0["device"] == "GWSR0002" && $0["date"] == "2026-06-18" }?["state"] == "missing")

        // The last seven days: score --db --end at the window's end, the same verdict and shortfalls.
        let status = try #require(try JSONSerialization.jsonObject(with: Data(try bracelet(["gateway", "status", "--db", db, "--json"]).out.utf8))
            as? [String: Any])
        let devices = Dictionary(uniqueKeysWithValues: (status["devices"] as? [[String: Any]] ?? []).map { ("\($0["serial"] ?? "")", $0) })
        var scorable: [String: Bool] = [:]
        for device in ["GWSR0001", "GWSR0002", "GWSR0003"] {
            let line = try #require(lines.first { $0["device"] == device })
            #expect(line["window_end"] == "2026-06-18" && line["window_start"] == "2026-06-12")
            let score = try bracelet(["score", "--db", db, "--device", device, "--end", "2026-06-18", "--days", "7"])
            scorable[device] = line["scorable"] == "true"
            #expect((score.status == 0) == scorable[device], "\(device): score says \(score.status) \(score.err)")
            if score.status != 0 {
                // "sleep duration on 3 of 4 days" on the page, "sleep duration on 3 day(s)" from score.
                for shortfall in (line["not_scorable_because"] ?? "").split(separator: ";") {
                    let words = shortfall.trimmingCharacters(in: .whitespaces).components(separatedBy: " of ")
                    #expect(score.err.contains(words[0] + " day(s)"), "\(device): \(shortfall) / \(score.err)")
                }
            }
            // Last sync, last heard, battery and backlog: gateway status --json's.
            let shown = try #require(devices[device])
            func text(_ key: String) -> String { shown[key].map { $0 is NSNull ? "" : "\($0)" } ?? "" }
            #expect(line["last_sync"] == text("last_sync") && line["last_heard"] == text("last_heard"), "\(device) \(line)")
            #expect(line["battery_pct"] == text("battery") && line["backlog_bytes"] == text("backlog_bytes"), "\(device)")
            #expect(html.contains("data-battery=\"\(text("battery"))\""))
            #expect(html.contains("datetime=\"\(text("last_sync"))\""))
        }
        #expect(scorable == ["GWSR0001": false, "GWSR0002": false, "GWSR0003": true])
        #expect(lines.first { $0["device"] == "GWSR0003" }?["battery_pct"] == "12")
        #expect(lines.first { $0["device"] == "GWSR0003" }?["battery_change_24h"] == "0", "never charged, no drain")

        // Operator events: the silent one's and the low battery's hold; the charged one has none.
        let events = Dictionary(lines.map { ($0["device"] ?? "", $0["open_events"] ?? "") }, uniquingKeysWith: { a, _ in a })
        #expect(events == ["GWSR0001": "", "GWSR0002": "not_heard", "GWSR0003": "battery_low"])
        #expect(html.contains("data-events=\"not_heard\">silent</td>") && html.contains("data-events=\"battery_low\">battery low</td>"))
        #expect(lines.first { $0["device"] == "GWSR0001" }?["user"] == "P-01")
        // The gateway's own --battery-low decides: at 10 % the battery at 12 % is not low; --days 3 is the page's length.
        let lower = try bracelet(["report", "--study", "--db", db, "--to", "2026-06-18", "--days", "3", "--battery-low", "10", "--format", "csv"])
        #expect(lower.status == 0, "\(lower.err)")
        let lowerLines = csvLines(lower.out)
        #expect(lowerLines.count == 3 * 3 && Set(lowerLines.compactMap { $0["date"] }) == ["2026-06-16", "2026-06-17", "2026-06-18"])
        #expect(Dictionary(lowerLines.map { ($0["device"] ?? "", $0["open_events"] ?? "") }, uniquingKeysWith: { a, _ in a })
                == ["GWSR0001": "", "GWSR0002": "not_heard", "GWSR0003": ""])

        // At the gateway's own time: 2026-06-18 is not over yet, and who needs attention says why.
        let overview = try StudyOverview.gateway(store: store, from: try #require(LocalDate(iso: "2026-06-12")),
                                                 to: try #require(LocalDate(iso: "2026-06-18")), now: clock.current.nowSeconds(), source: "test",
                                                 thresholds: OperatorEvents.Thresholds())
        #expect(overview.participants.map(\.device) == ["GWSR0001", "GWSR0002", "GWSR0003"])
        #expect(overview.participants.allSatisfy { $0.days.last?.state == .notOver })
        #expect(overview.participants.allSatisfy { $0.scoring.end.description == "2026-06-17" }, "the window ends on the last day that is over")
        let reasons = Dictionary(uniqueKeysWithValues: overview.participants.map { ($0.device, $0.attention) })
        #expect(reasons["GWSR0002"]?.first == "silent")
        #expect(reasons["GWSR0003"] == ["battery low"])
        #expect(reasons["GWSR0001"]?.contains("last 7 days not scorable") == true)
        #expect(overview.onTrack == 0 && overview.needingAttention == 3)
        #expect(overview.sinks.map(\.pending) == [try store.outboxCounts().pending])
    }

    /// A standard sensor's row names the sensor (its Device Information maker and model), never a
    /// bracelet model: the model column comes from the device's sensor first.
    @Test func aStrapsRowNamesTheSensor() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try Store(path: folder + "/g.db")
        try store.recordSensor(device: "HRS00001", name: "Polar H10")
        let day = try #require(LocalDate(iso: "2026-06-12"))
        let overview = try StudyOverview.gateway(store: store, from: day, to: day, now: june15, source: "test", thresholds: OperatorEvents.Thresholds())
        #expect(overview.participants.map(\.device) == ["HRS00001"] && overview.participants.map(\.model) == ["Polar H10"])
    }
}
