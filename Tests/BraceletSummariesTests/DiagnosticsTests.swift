import BraceletDecoder
import Foundation
import Testing
@testable import BraceletSummaries

@Suite struct DiagnosticsTests {
    @Test func duplicatesAreIdempotent() throws {
        let samples = (0..<10).map { slot(at(8, $0), bpm: 60 + $0, steps: 10) }
        var e = try engine(samples)
        let before = e.days
        let report = e.add(slots: samples, now: testNow)
        #expect(e.days == before)
        #expect(e.day("2026-01-15")?.steps.stepCount == 100)
        #expect(report.map(\.kind) == [.duplicate])
        #expect(report.first?.message.contains("10 sample(s)") == true)
        #expect(report.first?.time == at(8, 0))
    }

    @Test func conflictingDuplicateKeepsTheFirstAndNamesTheTime() throws {
        var e = try engine([slot(at(8, 0), bpm: 60)])
        let report = e.add(slots: [slot(at(8, 0), bpm: 90)], now: testNow)
        #expect(report.map(\.kind) == [.conflictingDuplicate])
        #expect(report.first?.message.contains("2026-01-15T08:00:00Z") == true)
        #expect(e.day("2026-01-15")?.bpm.averageBPM == 60)
    }

    @Test func futureSamplesAreDroppedAndTheRestUsed() throws {
        var e = SummaryEngine(configuration: try utcConfiguration())
        let report = e.add(slots: [slot(at(8, 0), bpm: 60), slot(at(9, 0), bpm: 70)], now: at(8, 30))
        #expect(report.map(\.kind) == [.futureSample])
        #expect(report.first?.time == at(9, 0))
        #expect(report.first?.message.contains("set the bracelet's clock") == true)
        #expect(e.day("2026-01-15")?.bpm.averageBPM == 60)
    }

    @Test func badAndOddIntervals() throws {
        var e = SummaryEngine(configuration: try utcConfiguration())
        let report = e.add(slots: [slot(at(8, 0), 0, bpm: 60), slot(at(8, 1), 7, bpm: 61), slot(at(8, 2), 7200, bpm: 62)],
                           now: testNow)
        #expect(report.map(\.kind) == [.badInterval, .intervalNotDividingDay, .badInterval])
        #expect(e.day("2026-01-15")?.bpm.averageBPM == 61)
    }

    @Test func slotNotDividingTheDayIsReportedOnce() throws {
        var e = SummaryEngine(configuration: try utcConfiguration(slotSeconds: 420))
        #expect(e.add(slots: [slot(at(8, 0), bpm: 60)], now: testNow).map(\.kind) == [.slotNotDividingDay])
        #expect(e.add(slots: [slot(at(8, 1), bpm: 60)], now: testNow).isEmpty)
    }

    @Test func timeZoneChangeWithinADayIsNamed() throws {
        var e = SummaryEngine(configuration: try utcConfiguration())
        #expect(e.add(slots: [slot(at(8, 0), bpm: 60)], sourceOffsetSeconds: 3600, now: testNow).isEmpty)
        let report = e.add(slots: [slot(at(12, 0), bpm: 60)], sourceOffsetSeconds: 7200, now: testNow)
        #expect(report.map(\.kind) == [.timeZoneChanged])
        #expect(report.first?.message.contains("2026-01-15T12:00:00Z") == true)
        #expect(e.day("2026-01-15")?.bpm.slots.count == 2)
    }
}

@Suite struct DocumentTests {
    @Test func missingValuesEncodeAsNull() throws {
        let e = try engine([slot(at(8, 0), steps: 10)])
        let json = String(decoding: try e.document().jsonData(), as: UTF8.self)
        #expect(json.contains("\"averageBPM\" : null"))
        #expect(json.contains("\"averageSpo2\" : null"))
        #expect(json.contains("\"sleepHRV\" : null"))
        #expect(json.contains("\"stepCount\" : 10"))
        #expect(json.contains("\"sleepSessions\" : ["))
        let decoded = try JSONDecoder().decode(SummaryDocument.self, from: try e.document().jsonData())
        #expect(decoded == e.document())
    }

    @Test func documentForOneDayAndTable() throws {
        let samples = SleepSessionTests.night + [slot(at(8, 0), bpm: 70, steps: 500)]
        let e = try engine(samples)
        let doc = e.document(date: "2026-01-15")
        #expect(doc.days.map(\.date) == ["2026-01-15"])
        #expect(doc.sleepSessions.count == 1)
        let table = SummaryTableRenderer.render(doc)
        #expect(table.contains("2026-01-15"))
        #expect(table.contains("21:40"))
        #expect(table.contains("3:30")) // total sleep 12600 s
        #expect(table.contains("main"))
        let hrvTable = SummaryTableRenderer.render(HRVAnalysis.analyze(HRVTests.beats))
        #expect(hrvTable.contains("kept      8"))
        #expect(hrvTable.contains("SDNN      -") == false)
    }
}

@Suite struct HostileInputTests {
    @Test func absurdValuesDoNotCrashAndAreNotCounted() throws {
        var s = slot(at(8, 0), bpm: Int.max, breath: 1e300, breathQ: 4, steps: Int.max, energy: Int.max, active: -5,
                     spo2: Int.min, spo2Q: 4)
        s.skinTempC = .nan
        let day = try #require(try engine([s, slot(at(8, 1), steps: 10)]).day("2026-01-15"))
        #expect(day.steps.stepCount == 10)       // Int.max steps are outside 0...65535
        #expect(day.steps.stepCalories == nil)
        #expect(day.activity.calories == nil)
        #expect(day.bodyTemp.averageTemp == nil) // NaN is not a temperature
        #expect(day.bpm.maxDayBPM == nil)        // outside 30...220: missing, never clamped
        #expect(day.breath.maxDayBreath == nil)  // 1e300 is outside 5...45
        #expect(day.spo2.maxDaySpo2 == nil)
        #expect(day.diagnostics.outOfRange.map(\.field) == [.bpm, .breath, .spo2, .skinTempC])
    }

    @Test func clockNotSetIsReported() throws {
        var e = SummaryEngine(configuration: try utcConfiguration())
        let report = e.add(slots: [slot(0, bpm: 60), slot(at(8, 0), bpm: 70)],
                           beats: [Beat(timeMs: 5, rrMs: 1000)], now: testNow)
        #expect(report.map(\.kind) == [.implausibleTime, .implausibleTime])
        #expect(report.first?.message.contains("clock") == true)
        #expect(e.days.map(\.date) == ["2026-01-15"])
    }

    @Test func oneShotSummarizeGivesTheDocumentAndDiagnostics() throws {
        let result = SummaryEngine.summarize(slots: [slot(at(8, 0), bpm: 70), slot(at(8, 0), bpm: 70)],
                                             configuration: try utcConfiguration(), date: "2026-01-15", now: testNow)
        #expect(result.document.days.count == 1)
        #expect(result.diagnostics.map(\.kind) == [.duplicate]) // a duplicate inside one call is reported too
        #expect(result.document.days.first?.bpm.slots.count == 1)
    }
}
