import BraceletDecoder
import BraceletSimulator
import Testing

@Suite struct SleepStructureTests {
    /// Every full night of every scenario (nights cut by the range are included: the model plans them whole).
    private func nights() throws -> [SleepPeriod] {
        try TestSupport.allScenarioModels().flatMap { $0.sleepPeriods.filter { $0.kind == .night } }
    }

    @Test func segmentsTileThePeriodStartingAwake() throws {
        for night in try nights() {
            #expect(night.segments.first?.start == night.start)
            #expect(night.segments.last?.end == night.end)
            #expect(night.segments.first?.stage == .awake)
            for (earlier, later) in zip(night.segments, night.segments.dropFirst()) {
                #expect(earlier.end == later.start)
                #expect(earlier.stage != later.stage)
                #expect(earlier.end > earlier.start)
            }
        }
    }

    @Test func deepSleepComesEarlyAndRemLate() throws {
        for night in try nights() {
            let middle = (night.start + night.end) / 2
            func seconds(_ stage: SleepStage, firstHalf: Bool) -> Int64 {
                night.segments.filter { $0.stage == stage }.reduce(0) { total, segment in
                    let low = firstHalf ? segment.start : max(segment.start, middle)
                    let high = firstHalf ? min(segment.end, middle) : segment.end
                    return total + max(0, high - low)
                }
            }
            #expect(seconds(.deep, firstHalf: true) > 2 * seconds(.deep, firstHalf: false))
            #expect(seconds(.rem, firstHalf: false) > seconds(.rem, firstHalf: true))
            // A healthy adult night: deep 10-25 %, REM 15-35 %, light the largest share.
            let length = Double(night.end - night.start)
            #expect((0.10...0.25).contains(Double(night.seconds(in: .deep)) / length))
            #expect((0.15...0.35).contains(Double(night.seconds(in: .rem)) / length))
            #expect(night.seconds(in: .light) > night.seconds(in: .deep) + night.seconds(in: .rem))
        }
    }

    @Test func cyclesLastAboutNinetyMinutes() throws {
        for night in try nights() {
            // Each cycle ends with REM: the spacing between REM ends is the cycle length (plus any
            // brief awakening). A last REM cut short by the alarm is not a cycle end.
            // The night ends with minutes of lying awake before getting up.
            let lyingAwake = try #require(night.segments.last)
            #expect(lyingAwake.stage == .awake)
            #expect((120...840).contains(lyingAwake.end - lyingAwake.start)) // 2-10 min, plus a brief awakening just before
            let remEnds = night.segments.filter { $0.stage == .rem && $0.end < lyingAwake.start }.map(\.end)
            let hours = Double(night.end - night.start) / 3_600
            #expect(remEnds.count >= Int(hours / 1.5) - 1 && remEnds.count <= Int(hours / 1.5) + 1)
            let gaps = zip(remEnds, remEnds.dropFirst()).map { Double($1 - $0) / 60 }
            #expect((80...100).contains(TestSupport.mean(gaps)))
            #expect(gaps.allSatisfy { (65...120).contains($0) })
            let awakenings = night.segments.dropFirst().dropLast().filter { $0.stage == .awake }
            #expect(!awakenings.isEmpty)
            #expect(awakenings.allSatisfy { $0.end - $0.start <= 240 })
        }
    }

    @Test func slotStagesFollowTheGroundTruth() throws {
        let model = try PhysiologyScenario.v2ThreeDays.makeModel()
        for slot in model.slots() {
            if slot.wearing == 0 {
                #expect(slot.sleepStage == nil)
            } else if let stage = TestSupport.stage(of: slot, in: model) {
                #expect(slot.sleepStage == stage.rawValue)
            } else {
                #expect(slot.sleepStage == SleepStage.awake.rawValue)
            }
        }
        #expect(model.sleepPeriods.filter { $0.kind == .nap }.count == 3)
    }
}
