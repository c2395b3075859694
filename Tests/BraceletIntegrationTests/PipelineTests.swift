import Foundation
import Testing
import BraceletCapture
import BraceletDecoder
import BraceletSimulator
import BraceletStore
import BraceletSummaries
@testable import BraceletVitality

/// From a bundled capture through the summary engine, the store and the vitality adapter.
enum Bundled {
    static let captures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("captures")

    static func replay(_ name: String) throws -> ReplayedCapture {
        try ReplayedCapture.load(bytes: CaptureFile.read(path: captures.appendingPathComponent(name).path))
    }

    static func temporaryDatabase() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("bracelet-\(UUID().uuidString).db").path
    }
}

@Test func theV1DayReadsBackLikeTheSeedsExampleDay() throws {
    let replayed = try Bundled.replay("v1-day.btsnoop")
    let zone = try SummaryConfiguration.timeZone(named: "Europe/Amsterdam")
    let configuration = try SummaryConfiguration(age: 35, timeZone: zone)
    let (document, _) = SummaryEngine.summarize(slots: replayed.metricsFiles.flatMap(\.slots), beats: replayed.beatsFiles.flatMap(\.beats),
                                                configuration: configuration, date: "2026-06-15", now: 1_800_000_000)
    let day = try #require(document.days.first)
    #expect(day.date == "2026-06-15")
    // Heart rate: plausible day values, zone minutes add up to the counted time, percentages to ~100.
    let bpm = day.bpm
    let average = try #require(bpm.averageBPM)
    #expect((55...80).contains(average))
    #expect(try #require(bpm.maxDayBPM) >= 140)   // the evening run
    #expect(try #require(bpm.minDayBPM) <= 60)    // deep sleep
    let zoneMinutes = [bpm.durationRestZone, bpm.durationWarmUpZone, bpm.durationFatBurnZone, bpm.durationEnduranceZone,
                       bpm.durationPerformanceZone, bpm.durationMaxZone].compactMap { $0 }
    #expect(zoneMinutes.count == 6)
    #expect((1300...1440).contains(zoneMinutes.reduce(0, +)))
    let percentages = [bpm.percentageRestZone, bpm.percentageWarmUpZone, bpm.percentageFatBurnZone, bpm.percentageEnduranceZone,
                       bpm.percentagePerformanceZone, bpm.percentageMaxZone].compactMap { $0 }
    #expect((98...102).contains(percentages.reduce(0, +)))
    // The night ending that morning: the capture begins while the wearer sleeps, so it is cut by
    // the start of the data: truncated, not scored as the main sleep, and the day has none.
    let main = try #require(document.sleepSessions.first { $0.recordDate == "2026-06-15" && $0.totalSleepDuration >= 3 * 3600 })
    #expect(main.truncated)
    #expect(main.isMainSleep == false)
    #expect(day.mainSleepStart == nil)
    #expect((3 * 3600...9 * 3600).contains(main.totalSleepDuration))
    #expect(main.totalSecsDeep > 0 && main.totalSecsREM > 0 && main.totalSecsLight > 0)
    #expect(main.totalSecsLight + main.totalSecsDeep + main.totalSecsREM == main.totalSleepDuration)
    // Steps, distance (steps x 170 cm x 0.414 / 100) and V1 fields only.
    let steps = try #require(day.steps.stepCount)
    #expect(steps > 5000)
    #expect(abs(try #require(day.steps.stepDistance) - Double(steps) * 170 * 0.414 / 100) < 1)
    #expect(day.spo2.averageSpo2 == nil)
    #expect(day.coreBodyTemperature.averageCoreBodyTemperature == nil)
}

@Test func ingestingTwiceAddsNothingAndWritesNoNewOutboxEntry() throws {
    let path = Bundled.temporaryDatabase()
    defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
    let store = try Store(path: path)
    let replayed = try Bundled.replay("v2-three-days.btsnoop")
    let zone = try SummaryConfiguration.timeZone(named: "America/New_York")
    let recomputer = SummaryRecomputer(configuration: try SummaryConfiguration(age: 35, timeZone: zone), age: 35)

    func ingest() throws -> (slots: Int, report: RecomputeReport) {
        var dates: Set<String> = []
        var inserted = 0
        for file in replayed.metricsFiles {
            let r = try store.insertSlots(file.slots, device: file.header.serial, model: file.header.model)
            inserted += r.inserted
            dates.formUnion(r.touchedLocalDates(in: zone))
        }
        for file in replayed.beatsFiles {
            dates.formUnion(try store.insertBeats(file.beats, device: file.header.serial, model: file.header.model).touchedLocalDates(in: zone))
        }
        return (inserted, try recomputer.recompute(device: "V23DAY01", dates: Array(dates), store: store))
    }

    let first = try ingest()
    #expect(first.slots == replayed.metricsFiles.reduce(0) { $0 + $1.slots.count })
    #expect(first.report.dates.contains("2026-06-17"))
    #expect(first.report.changedSummaries == first.report.dates.count)
    #expect(first.report.changedVitalityDays >= 3)
    let pendingAfterFirst = try store.outboxCounts().pending
    #expect(pendingAfterFirst == first.report.changedSummaries + first.report.changedSleepSessions)

    let second = try ingest()
    #expect(second.slots == 0)
    #expect(second.report.dates.isEmpty)
    #expect(try store.outboxCounts().pending == pendingAfterFirst)

    // Recomputing one day on its own gives the same content (a night crossing midnight is seen
    // whole, not cut into a nap), so nothing is written either.
    let again = try recomputer.recompute(device: "V23DAY01", dates: ["2026-06-17"], store: store)
    #expect(again.changedSummaries == 0 && again.changedSleepSessions == 0 && again.changedVitalityDays == 0)

    // The stored vitality metrics of the middle day are complete and come from the main sleep.
    let rows = try store.vitalityMetrics(device: "V23DAY01", fromDate: "2026-06-17", toDate: "2026-06-17")
    let metrics = try StoredVitalityMetrics.decode(localDate: rows[0].localDate, json: rows[0].json).metrics
    #expect((6...9.5).contains(try #require(metrics.sleepDurationHours)))
    #expect(metrics.hrvType == .sdnn)
    #expect(try #require(metrics.steps) > 5000)
    #expect(metrics.activeCalories != nil)
}

@Test func braceletDayCountsMovementMinutesFromWalkRunCycleOrFatBurnHeartRate() throws {
    // Age 35: max HR 208 - 0.7 x 35 = 183.5, T60 = round(0.6 x 183.5) = 110.
    let start: Int64 = 1_781_654_400  // 2026-06-17T00:00:00Z
    let rows: [(bpm: Int, activity: Int)] = [(80, 7), (120, 7), (130, 2), (90, 4), (70, 7)]
    let slots = rows.enumerated().map { i, row in
        var s = Slot(start: start + Int64(i) * 60, intervalSeconds: 60)
        s.bpm = row.bpm; s.bpmQuality = 4; s.wearing = 4; s.activity = row.activity; s.steps = row.activity == 7 ? 0 : 100
        return s
    }
    let configuration = try SummaryConfiguration(age: 35, timeZone: try SummaryConfiguration.timeZone(named: "UTC"))
    let (document, _) = SummaryEngine.summarize(slots: slots, configuration: configuration, now: start + 86_400 * 2)
    let summary = try #require(document.days.first)
    #expect(summary.bpm.zoneThresholds.t60 == 110)
    let day = try #require(BraceletDay(summary: summary, sleepSessions: document.sleepSessions))
    // HR >= 110 at minutes 1 and 2; walk at 2, run at 3: minutes 1, 2, 3.
    #expect(day.movementMinutes == 3)
    #expect(day.steps == 200)
    #expect(day.totalSleepSeconds == nil)   // no sleep that day: nil, not 0
    #expect(day.nightlySDNNMs == nil)
}

@Test func withoutAnAgeTheAgeFreeVitalityMetricsAreStored() throws {
    let path = Bundled.temporaryDatabase()
    defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
    let store = try Store(path: path)
    let replayed = try Bundled.replay("v1-day.btsnoop")
    let zone = try SummaryConfiguration.timeZone(named: "Europe/Amsterdam")
    let file = try #require(replayed.metricsFiles.first)
    let dates = try store.insertSlots(file.slots, device: file.header.serial, model: file.header.model).touchedLocalDates(in: zone)
    let recomputer = SummaryRecomputer(configuration: try SummaryConfiguration(timeZone: zone), age: nil)
    #expect(recomputer.missingZoneInputWarning(database: path)?.contains("bracelet recompute --db \(path) --age N") == true)
    let report = try recomputer.recompute(device: file.header.serial, dates: dates, store: store)
    #expect(report.changedSummaries == 1)
    #expect(report.changedVitalityDays == 1)
    #expect(report.missingVitalityFields["2026-06-15"]?.first { $0.field == .movementMinutes }?.reason.contains("--age") == true)
    let rows = try store.vitalityMetrics(device: file.header.serial, fromDate: "2026-01-01", toDate: "2026-12-31")
    #expect(rows.count == 1)
    let row = try #require(rows.first)
    #expect(String(decoding: row.json, as: UTF8.self).contains(#""age":null"#))
    let stored = try StoredVitalityMetrics.decode(localDate: row.localDate, json: row.json, age: 35)
    #expect(stored.metrics.age == 35)                // the scoring age, given when reading
    #expect(try #require(stored.metrics.steps) > 5000) // age-free metrics are there
    #expect(stored.metrics.movementMinutes == nil)     // needs the zones
    #expect(stored.coverage?.dayMinutes == 1440)

    // Given an age later, every stored day is recomputed with it: movement minutes appear.
    let again = try SummaryRecomputer(configuration: try SummaryConfiguration(age: 35, timeZone: zone), age: 35)
        .recompute(device: file.header.serial, dates: try store.summaryDates(device: file.header.serial), store: store)
    #expect(again.dates == ["2026-06-15"])
    #expect(again.changedVitalityDays == 1)
    let completed = try store.vitalityMetrics(device: file.header.serial, fromDate: "2026-01-01", toDate: "2026-12-31")
    #expect(try StoredVitalityMetrics.decode(localDate: "2026-06-15", json: completed[0].json).metrics.movementMinutes != nil)
}
