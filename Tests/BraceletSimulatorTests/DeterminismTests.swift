import BraceletDecoder
import BraceletSimulator
import Testing

@Suite struct DeterminismTests {
    @Test func splitMix64MatchesTheReferenceSequence() {
        // Reference outputs of SplitMix64 seeded with 0 (Vigna's splitmix64.c).
        var random = SplitMix64(seed: 0)
        #expect(random.next() == 0xE220_A839_7B1D_CDAF)
        #expect(random.next() == 0x6E78_9E6A_A1B9_65F4)
        #expect(random.next() == 0x06C4_5D18_8009_454F)
    }

    @Test func sameSeedGivesTheSameSlotsBeatsAndSchedule() throws {
        let first = try PhysiologyScenario.v2ThreeDays.makeModel(seed: 7)
        let second = try PhysiologyScenario.v2ThreeDays.makeModel(seed: 7)
        #expect(first.slots() == second.slots())
        #expect(first.sleepPeriods == second.sleepPeriods)
        #expect(first.activities == second.activities)
        #expect(first.offWristPeriods == second.offWristPeriods)
        let night = first.sleepPeriods[0]
        #expect(first.beats(from: night.start, to: night.start + 3_600)
            == second.beats(from: night.start, to: night.start + 3_600))
    }

    @Test func differentSeedGivesDifferentData() throws {
        let first = try PhysiologyScenario.v1Day.makeModel(seed: 1).slots()
        let second = try PhysiologyScenario.v1Day.makeModel(seed: 2).slots()
        #expect(first.count == second.count)
        let differentHeartRates = zip(first, second).filter { $0.bpm != $1.bpm }.count
        #expect(differentHeartRates > first.count / 2)
        let firstModel = try PhysiologyScenario.v1Day.makeModel(seed: 1)
        let secondModel = try PhysiologyScenario.v1Day.makeModel(seed: 2)
        #expect(firstModel.sleepPeriods != secondModel.sleepPeriods)
    }

    @Test func anySubRangeEqualsTheSamePartOfTheWholeRange() throws {
        let model = try PhysiologyScenario.v2ThreeDays.makeModel()
        let all = model.slots()
        // From 10:00:30 (between two slots) to 10:30:00: the first slot is 10:01:00.
        let from = model.start + 10 * 3_600 + 30
        let to = model.start + 10 * 3_600 + 1_800
        let part = model.slots(from: from, to: to)
        #expect(part.count == 29)
        #expect(part.first?.start == model.start + 10 * 3_600 + 60)
        #expect(part == Array(all[601..<630]))
        #expect(model.slot(at: 601) == all[601])
        #expect(model.slot(at: all.count) == nil)
        #expect(model.slots(from: model.end, to: model.end + 600).isEmpty)
    }

    @Test func aBeatWindowEqualsTheSamePartOfALongerWindow() throws {
        let model = try PhysiologyScenario.v1Day.makeModel()
        let long = model.beats(from: model.start, to: model.start + 7_200)
        let short = model.beats(from: model.start + 3_600, to: model.start + 3_900)
        let expected = long.filter { $0.timeMs >= (model.start + 3_600) * 1_000 && $0.timeMs < (model.start + 3_900) * 1_000 }
        #expect(!short.isEmpty)
        #expect(short == expected)
    }
}
