import BraceletDecoder
import Foundation
import Testing
import BraceletSummaries

@Suite struct PerformanceTests {
    /// 30 days of V2 slots at 60 s with every field and a nightly hypnogram, plus 8 h of beats a night.
    static func history() -> (slots: [Slot], beats: [Beat]) {
        var rng = SeededGenerator(seed: 30)
        var slots: [Slot] = []
        slots.reserveCapacity(43_200)
        var beats: [Beat] = []
        let start: Int64 = 1_767_225_600 // 2026-01-01T00:00Z
        for i in 0..<(30 * 1440) {
            let t = start + Int64(i) * 60
            let minuteOfDay = i % 1440
            let night = minuteOfDay < 420 || minuteOfDay >= 1380
            var s = Slot(start: t, intervalSeconds: 60)
            s.bpm = night ? Int.random(in: 50...62, using: &rng) : Int.random(in: 60...140, using: &rng)
            s.bpmQuality = Int.random(in: 1...4, using: &rng)
            s.breath = Double.random(in: 10...18, using: &rng); s.breathQuality = 3
            s.steps = night ? 0 : Int.random(in: 0...120, using: &rng)
            s.activity = night ? 7 : [1, 2, 4, 7].randomElement(using: &rng)
            s.speed = Double.random(in: 0...3, using: &rng)
            s.energyCal = Int.random(in: 1000...8000, using: &rng); s.activeCal = Int.random(in: 0...3000, using: &rng)
            s.skinTempC = Double.random(in: 31...35, using: &rng); s.coreTempC = Double.random(in: 36.4...37.4, using: &rng)
            s.spo2 = Int.random(in: 94...99, using: &rng); s.spo2Quality = 3
            s.edaMicrosiemens = Double.random(in: 0.1...5, using: &rng)
            s.sleepStage = night ? [2, 2, 3, 4, 1].randomElement(using: &rng) : 1
            s.wearing = 4; s.battery = 80
            slots.append(s)
            if night {
                var ms = t * 1000
                for _ in 0..<60 where ms < (t + 60) * 1000 {
                    let rr = Int.random(in: 900...1100, using: &rng)
                    ms += Int64(rr)
                    if ms < (t + 60) * 1000 { beats.append(Beat(timeMs: ms, rrMs: rr)) }
                }
            }
        }
        return (slots, beats)
    }

    @Test func thirtyDaysOfV2Summarise() throws {
        let (slots, beats) = Self.history()
        let configuration = try SummaryConfiguration(age: 40, timeZone: SummaryConfiguration.timeZone(named: "Europe/Amsterdam"))
        let clock = ContinuousClock()
        var engine = SummaryEngine(configuration: configuration)
        let elapsed = clock.measure {
            engine.add(slots: slots, beats: beats, now: 1_900_000_000)
        }
        var slotsOnly = SummaryEngine(configuration: configuration)
        let slotsElapsed = clock.measure { slotsOnly.add(slots: slots, now: 1_900_000_000) }
        let hrvElapsed = clock.measure { _ = HRVAnalysis.analyze(beats) }
        print("slots only: \(slotsElapsed); HRV over all beats: \(hrvElapsed)")
        let json = try engine.document().jsonData()
        print("summarised \(slots.count) slots and \(beats.count) beats into \(engine.days.count) days and \(engine.sleepSessions.count) sessions in \(elapsed); JSON \(json.count) bytes")
        #expect(engine.days.count == 31) // 30 UTC days cut in Amsterdam time touch 31 local dates
        #expect(engine.sleepSessions.count >= 29)
        #expect(engine.days.allSatisfy { $0.bpm.averageBPM != nil })
        #expect(elapsed < .seconds(30)) // debug builds; release is measured separately (see report)
    }
}
