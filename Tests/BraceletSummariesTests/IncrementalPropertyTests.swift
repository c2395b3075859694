import BraceletDecoder
import Foundation
import Testing
@testable import BraceletSummaries

/// The incremental engine must give exactly what a full recompute gives, whatever the arrival order,
/// duplicates and late data.
@Suite struct IncrementalPropertyTests {
    /// 2026-03-28 00:00 Europe/Amsterdam (the DST night follows).
    static let base: Int64 = 1_774_652_400

    /// Random history: 2-minute vitals, 30-second hypnograms at night (with naps, gaps and awake
    /// stretches), and beats with artefacts and gaps.
    static func history(days: Int, using rng: inout SeededGenerator) -> (slots: [Slot], beats: [Beat]) {
        var slots: [Slot] = []
        for t in stride(from: base, to: base + Int64(days) * 86_400, by: 120) {
            var s = Slot(start: t, intervalSeconds: 120)
            if Int.random(in: 0..<10, using: &rng) > 0 {
                s.bpm = Int.random(in: 45...175, using: &rng)
                s.bpmQuality = Int.random(in: 0...4, using: &rng)
            }
            s.wearing = Int.random(in: 0..<20, using: &rng) == 0 ? 0 : 4
            if Bool.random(using: &rng) {
                s.breath = Double(Int.random(in: 100...200, using: &rng)) / 10
                s.breathQuality = Int.random(in: 0...4, using: &rng)
            }
            s.steps = Int.random(in: 0..<4, using: &rng) == 0 ? nil : Int.random(in: 0...120, using: &rng)
            s.activity = [0, 1, 2, 4, 6, 7].randomElement(using: &rng)
            s.energyCal = Int.random(in: 1000...9000, using: &rng)
            s.activeCal = Int.random(in: 0...3000, using: &rng)
            s.skinTempC = Double(Int.random(in: 300...360, using: &rng)) / 10
            s.spo2 = Int.random(in: 90...100, using: &rng)
            s.spo2Quality = Int.random(in: 0...4, using: &rng)
            s.edaMicrosiemens = Double(Int.random(in: 1...50, using: &rng)) / 10
            slots.append(s)
        }
        var beats: [Beat] = []
        for night in 0..<days {
            // 21:00 .. 09:00 local-ish, random stage blocks of 30 s samples
            var t = base + Int64(night) * 86_400 - 3 * 3600 + Int64(Int.random(in: 0...3600, using: &rng))
            let end = t + 12 * 3600
            while t < end {
                let stage = [0, 1, 1, 2, 2, 2, 3, 3, 4, 4].randomElement(using: &rng) ?? 2
                let count = Int.random(in: 1...(stage == 0 ? 150 : 60), using: &rng)
                for _ in 0..<count where t < end {
                    var s = Slot(start: t, intervalSeconds: 30)
                    s.sleepStage = stage
                    slots.append(s)
                    t += 30
                }
                if Int.random(in: 0..<15, using: &rng) == 0 { t += Int64(Int.random(in: 60...5400, using: &rng)) } // no samples at all
            }
            // beats: a few stretches of 20 minutes
            for _ in 0..<3 {
                var ms = (base + Int64(night) * 86_400 + Int64(Int.random(in: -10_000...25_000, using: &rng))) * 1000
                beats.append(Beat(timeMs: ms, rrMs: nil))
                for _ in 0..<1100 {
                    var rr = Int.random(in: 850...1150, using: &rng)
                    if Int.random(in: 0..<40, using: &rng) == 0 { rr = Int.random(in: 200...2500, using: &rng) }
                    ms += Int64(rr)
                    beats.append(Beat(timeMs: ms, rrMs: Int.random(in: 0..<300, using: &rng) == 0 ? nil : rr))
                }
            }
        }
        // Overlapping stretches can put two different beats on the same millisecond; which one wins
        // would depend on arrival (first stored is kept), so the generator keeps only the first.
        var seen: Set<Int64> = []
        return (slots, beats.filter { seen.insert($0.timeMs).inserted })
    }

    @Test(arguments: 0..<24)
    func incrementalEqualsFullRecompute(seed: Int) throws {
        var rng = SeededGenerator(seed: UInt64(seed) &* 7919 &+ 17)
        let configuration = try SummaryConfiguration(age: 35, timeZone: SummaryConfiguration.timeZone(named: "Europe/Amsterdam"))
        let (slots, beats) = Self.history(days: Int.random(in: 1...3, using: &rng), using: &rng)

        // Arrival: shuffled (so late and out of order), in random batches, with re-sent duplicates.
        var items: [Either] = slots.map(Either.slot) + beats.map(Either.beat)
        items.shuffle(using: &rng)
        var incremental = SummaryEngine(configuration: configuration)
        var sent: [Either] = []
        var index = 0
        while index < items.count {
            let size = Int.random(in: 1...max(1, items.count / 8), using: &rng)
            var batch = Array(items[index..<min(items.count, index + size)])
            index += size
            if !sent.isEmpty, Bool.random(using: &rng) {
                for _ in 0..<Int.random(in: 1...20, using: &rng) { batch.append(sent.randomElement(using: &rng) ?? batch[0]) }
            }
            sent += batch
            incremental.add(slots: batch.compactMap(\.slot), beats: batch.compactMap(\.beat), now: testNow)
        }

        var full = SummaryEngine(configuration: configuration)
        full.add(slots: slots, beats: beats, now: testNow)
        var recomputed = incremental
        recomputed.recomputeAll()

        #expect(Self.difference(incremental, recomputed) == nil)
        #expect(Self.difference(incremental, full) == nil)
        #expect(incremental.days == full.days)
        #expect(incremental.sleepSessions == full.sleepSessions)
        #expect(!incremental.sleepSessions.isEmpty)
    }

    @Test(arguments: 0..<6)
    func anEngineSummarisingSomeDatesGivesThoseDaysAsAFullOne(seed: Int) throws {
        var rng = SeededGenerator(seed: UInt64(seed) &* 104_729 &+ 3)
        let configuration = try SummaryConfiguration(age: 35, timeZone: SummaryConfiguration.timeZone(named: "Europe/Amsterdam"))
        let (slots, beats) = Self.history(days: 4, using: &rng)
        var full = SummaryEngine(configuration: configuration)
        full.add(slots: slots, beats: beats, now: testNow)
        let all = full.days.map(\.date)
        #expect(all.count >= 4)
        // The middle days, as a recompute asks for them with the days around them read too.
        let wanted = Array(all.dropFirst().dropLast())
        var some = SummaryEngine(configuration: configuration, summarising: wanted)
        some.add(slots: slots, beats: beats, now: testNow)
        #expect(some.days.map(\.date) == wanted)
        for date in wanted { #expect(some.day(date) == full.day(date), "\(date)") }
        #expect(some.day(all[0]) == nil)
        #expect(some.sleepSessions == full.sleepSessions)
    }

    @Test func addingOneLateSampleRecomputesOnlyItsDay() throws {
        var rng = SeededGenerator(seed: 99)
        let configuration = try SummaryConfiguration(age: 35, timeZone: SummaryConfiguration.timeZone(named: "Europe/Amsterdam"))
        let (slots, beats) = Self.history(days: 3, using: &rng)
        var e = SummaryEngine(configuration: configuration)
        e.add(slots: slots, beats: beats, now: testNow)
        #expect(e.lastRecomputedDates.count >= 3)
        // 2026-03-29 13:01:10 local: a 10 s sample no other sample starts at
        e.add(slots: [slot(1_774_782_070, 10, bpm: 80)], now: testNow)
        #expect(e.lastRecomputedDates == ["2026-03-29"])
    }

    /// The first differing day or session group, named, so a failure is readable.
    static func difference(_ a: SummaryEngine, _ b: SummaryEngine) -> String? {
        if a.sleepSessions.count != b.sleepSessions.count {
            return "session count \(a.sleepSessions.count) vs \(b.sleepSessions.count): \(a.sleepSessions.map(\.startSession)) vs \(b.sleepSessions.map(\.startSession))"
        }
        for (x, y) in zip(a.sleepSessions, b.sleepSessions) where x != y {
            var x2 = x, y2 = y
            x2.slots = []; y2.slots = []
            return "session \(x.startSession): \(x2) vs \(y2)"
        }
        if a.days.map(\.date) != b.days.map(\.date) { return "dates \(a.days.map(\.date)) vs \(b.days.map(\.date))" }
        for (x, y) in zip(a.days, b.days) where x != y {
            if x.bpm != y.bpm { var p = x.bpm, q = y.bpm; p.slots = []; q.slots = []; return "\(x.date) bpm \(p) vs \(q)" }
            if x.breath != y.breath { return "\(x.date) breath \(x.breath.sleepBreathRate as Any) vs \(y.breath.sleepBreathRate as Any)" }
            if x.sleepHRV != y.sleepHRV { return "\(x.date) hrv \(x.sleepHRV as Any) vs \(y.sleepHRV as Any)" }
            if x.mainSleepStart != y.mainSleepStart { return "\(x.date) main \(x.mainSleepStart as Any) vs \(y.mainSleepStart as Any)" }
            return "\(x.date) other group differs"
        }
        return nil
    }

    enum Either {
        case slot(Slot)
        case beat(Beat)
        var slot: Slot? { if case .slot(let s) = self { s } else { nil } }
        var beat: Beat? { if case .beat(let b) = self { b } else { nil } }
    }
}
