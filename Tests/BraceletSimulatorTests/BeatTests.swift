import BraceletDecoder
import BraceletSimulator
import Testing

@Suite struct BeatTests {
    /// Root mean square of successive RR differences (ms), leaving out the intervals around ectopic beats.
    private func rmssd(_ beats: [SimulatedBeat]) -> Double {
        var squares: [Double] = []
        for index in 2..<beats.count {
            let window = beats[(index - 2)...index]
            guard !window.contains(where: \.isEctopic),
                  let a = beats[index - 1].beat.rrMs, let b = beats[index].beat.rrMs else { continue }
            squares.append(Double((b - a) * (b - a)))
        }
        return TestSupport.mean(squares).squareRoot()
    }

    @Test func meanRRMatchesTheSlotHeartRate() throws {
        let model = try PhysiologyScenario.v1Day.makeModel()
        // The night from the start, and the evening walk and run.
        let windows = [(model.start, model.start + 4 * 3_600)]
            + model.activities.filter { $0.kind != .cycle }.map { ($0.start, $0.end) }
        var relativeErrors: [Double] = []
        for (from, to) in windows {
            let beats = model.beats(from: from, to: to)
            for slot in model.slots(from: from, to: to) {
                guard let bpm = slot.bpm else { continue }
                let low = slot.start * 1_000
                let high = low + Int64(slot.intervalSeconds) * 1_000
                let intervals = beats.filter { $0.timeMs >= low && $0.timeMs < high }.compactMap(\.rrMs)
                guard intervals.count >= 40 else { continue }
                let meanRR = TestSupport.mean(intervals.map(Double.init))
                let expected = 60_000 / Double(bpm)
                let error = abs(meanRR - expected) / expected
                #expect(error < 0.06, "slot \(slot.start): mean RR \(meanRR) ms vs \(expected) ms from \(bpm) bpm")
                relativeErrors.append(error)
            }
        }
        #expect(relativeErrors.count > 300)
        #expect(TestSupport.mean(relativeErrors) < 0.02)
    }

    @Test func variabilityIsHigherAtNightThanSittingInTheDay() throws {
        let model = try PhysiologyScenario.v2ThreeDays.makeModel()
        let night = try #require(model.sleepPeriods.first { $0.kind == .night && $0.start >= model.start })
        let asleep = model.annotatedBeats(from: night.start + 3_600, to: night.start + 7_200)
        // 10:00-11:00 local on day 1 (EDT, UTC-4), sitting awake.
        let dayStart = model.start + 86_400 + 10 * 3_600
        let awake = model.annotatedBeats(from: dayStart, to: dayStart + 3_600)
        #expect(asleep.count > 3_000 && awake.count > 3_000)
        #expect(rmssd(asleep) > 1.5 * rmssd(awake))
        #expect((20...120).contains(rmssd(asleep)))
    }

    @Test func ectopicBeatsAreRareShortAndFollowedByACompensatoryPause() throws {
        let model = try PhysiologyScenario.v1Day.makeModel()
        let night = model.annotatedBeats(from: model.start, to: model.start + 6 * 3_600)
        #expect(night.count > 18_000)
        let ectopic = night.indices.filter { night[$0].isEctopic }
        // About one in a thousand beats.
        #expect((5...60).contains(ectopic.count))
        for index in ectopic where index >= 1 && index + 1 < night.count {
            let premature = try #require(night[index].beat.rrMs)
            let before = try #require(night[index - 1].beat.rrMs)
            let after = try #require(night[index + 1].beat.rrMs)
            #expect(Double(premature) < 0.8 * Double(before))
            #expect(Double(after) > 1.8 * Double(premature))
        }
    }

    @Test func noBeatsOffWristAndTheFirstBeatAfterAGapHasNoInterval() throws {
        let model = try PhysiologyScenario.v1Day.makeModel()
        let beats = model.beats(from: model.start, to: model.end)
        #expect(beats.count > 90_000)
        for period in model.offWristPeriods {
            #expect(!beats.contains { $0.timeMs >= period.start * 1_000 && $0.timeMs < period.end * 1_000 })
        }
        let openings = beats.indices.filter { beats[$0].rrMs == nil }
        #expect(openings.count == model.wornPeriods.count)
        #expect(openings.first == 0)
        for (previous, beat) in zip(beats, beats.dropFirst()) where beat.rrMs != nil {
            #expect(beat.timeMs - previous.timeMs == Int64(beat.rrMs!))
        }
        #expect(beats.compactMap(\.rrMs).allSatisfy { (250...2_000).contains($0) })
        #expect(model.beats(from: model.end, to: model.end + 60).isEmpty)
    }
}
