import BraceletDecoder
import BraceletSimulator
import Testing

@Suite struct SlotRangeTests {
    @Test func heartRateFollowsSleepRestWalkAndRun() throws {
        let model = try PhysiologyScenario.v1Day.makeModel()
        let slots = model.slots()
        let deep = slots.filter { TestSupport.stage(of: $0, in: model) == .deep }.compactMap(\.bpm).map(Double.init)
        #expect(deep.count > 60)
        #expect(deep.allSatisfy { (48...66).contains($0) })
        #expect((50...60).contains(TestSupport.mean(deep)))

        let resting = TestSupport.restingAwakeSlots(in: model, slots: slots).compactMap(\.bpm).map(Double.init)
        #expect(resting.count > 200)
        #expect(resting.allSatisfy { (58...86).contains($0) })
        #expect((64...78).contains(TestSupport.mean(resting)))

        let walking = TestSupport.steadySlots(of: .walk, in: model, slots: slots).compactMap(\.bpm).map(Double.init)
        #expect(walking.count > 30)
        #expect(walking.allSatisfy { (96...124).contains($0) })
        #expect((102...118).contains(TestSupport.mean(walking)))

        let running = TestSupport.steadySlots(of: .run, in: model, slots: slots).compactMap(\.bpm).map(Double.init)
        #expect(running.count > 20)
        #expect(running.allSatisfy { (140...175).contains($0) })
    }

    @Test func stepsActivityAndSpeedMatchTheActivities() throws {
        let model = try PhysiologyScenario.v2ThreeDays.makeModel()
        let slots = model.slots()
        let walks = TestSupport.steadySlots(of: .walk, in: model, slots: slots)
        #expect(walks.count > 100)
        #expect(walks.allSatisfy { $0.activity == 2 && (90...110).contains($0.steps ?? -1) })
        // 100 steps/min with a 0.415 x 1.76 m stride is ~1.22 m/s.
        #expect(walks.allSatisfy { (1.0...1.45).contains($0.speed ?? -1) })
        let runs = TestSupport.steadySlots(of: .run, in: model, slots: slots)
        #expect(!runs.isEmpty)
        #expect(runs.allSatisfy { $0.activity == 4 && (150...170).contains($0.steps ?? -1) })
        #expect(runs.allSatisfy { (2.7...3.4).contains($0.speed ?? -1) })
        let rides = TestSupport.steadySlots(of: .cycle, in: model, slots: slots)
        #expect(!rides.isEmpty)
        #expect(rides.allSatisfy { $0.activity == 6 && $0.steps == 0 && (4.8...6.2).contains($0.speed ?? -1) })
        let asleep = slots.filter { TestSupport.stage(of: $0, in: model) != nil && $0.wearing == 4 }
        #expect(asleep.count > 1_000)
        #expect(asleep.allSatisfy { $0.activity == 7 && $0.steps == 0 })
        #expect(slots.allSatisfy { [nil, 0, 1, 2, 4, 6, 7].contains($0.activity) })
    }

    @Test func qualityIsLowerInMovement() throws {
        let model = try PhysiologyScenario.v2ThreeDays.makeModel()
        let slots = model.slots()
        let still = TestSupport.restingAwakeSlots(in: model, slots: slots).compactMap(\.bpmQuality).map(Double.init)
        let running = TestSupport.steadySlots(of: .run, in: model, slots: slots).compactMap(\.bpmQuality).map(Double.init)
        #expect(TestSupport.mean(still) > 3.4)
        #expect(TestSupport.mean(running) < 2.6)
        #expect(slots.compactMap(\.bpmQuality).allSatisfy { (0...4).contains($0) })
        #expect(slots.compactMap(\.breathQuality).allSatisfy { (0...4).contains($0) })
        #expect(slots.compactMap(\.spo2Quality).allSatisfy { (0...4).contains($0) })
    }

    @Test func breathIsSlowerAndSteadierInDeepSleep() throws {
        let model = try PhysiologyScenario.v2DaylightSaving.makeModel()
        let slots = model.slots()
        let awake = TestSupport.restingAwakeSlots(in: model, slots: slots).compactMap(\.breath)
        #expect(awake.allSatisfy { (12...16).contains($0) })
        let deep = slots.filter { TestSupport.stage(of: $0, in: model) == .deep }.compactMap(\.breath)
        let rem = slots.filter { TestSupport.stage(of: $0, in: model) == .rem }.compactMap(\.breath)
        #expect(TestSupport.mean(deep) < TestSupport.mean(awake) - 1)
        #expect(TestSupport.standardDeviation(deep) < TestSupport.standardDeviation(rem) / 2)
        let running = TestSupport.steadySlots(of: .run, in: model, slots: slots).compactMap(\.breath)
        #expect(!running.isEmpty)
        #expect(running.allSatisfy { $0 > 24 })
    }

    @Test func temperaturesStayInRangeAndSkinWarmsInSleep() throws {
        for model in try TestSupport.allScenarioModels() {
            let slots = model.slots()
            #expect(slots.compactMap(\.skinTempC).allSatisfy { (33.0...35.6).contains($0) })
            // Two hours after bedtime the wrist is at least a degree warmer than when sitting awake.
            let sleeping = slots.filter { slot in
                model.sleepPeriods.contains { $0.kind == .night && slot.start >= $0.start + 7_200 && slot.start < $0.end }
            }.compactMap(\.skinTempC)
            let sitting = TestSupport.restingAwakeSlots(in: model, slots: slots).compactMap(\.skinTempC)
            #expect(TestSupport.mean(sleeping) > TestSupport.mean(sitting) + 1)
        }
        let v2 = try PhysiologyScenario.v2ThreeDays.makeModel().slots()
        let core = v2.compactMap(\.coreTempC)
        #expect(core.count > 4_000)
        #expect(core.allSatisfy { (36.2...37.4).contains($0) && abs($0 * 10 - ($0 * 10).rounded()) < 1e-9 })
        #expect(core.max()! - core.min()! >= 0.5)  // the circadian swing
    }

    @Test func spo2AndEdaAreInRangeAndEdaRisesWithExercise() throws {
        let model = try PhysiologyScenario.v2ThreeDays.makeModel()
        let slots = model.slots()
        let awake = slots.filter { TestSupport.stage(of: $0, in: model) == nil }.compactMap(\.spo2)
        #expect(awake.allSatisfy { (95...99).contains($0) })
        #expect(slots.compactMap(\.spo2).allSatisfy { (90...100).contains($0) })
        let eda = slots.compactMap(\.edaMicrosiemens)
        #expect(eda.allSatisfy { $0 > 0 && $0 < 30 })
        let resting = TestSupport.restingAwakeSlots(in: model, slots: slots).compactMap(\.edaMicrosiemens)
        let running = TestSupport.steadySlots(of: .run, in: model, slots: slots).compactMap(\.edaMicrosiemens)
        #expect(TestSupport.mean(running) > TestSupport.mean(resting) + 3)
    }

    @Test func energyIsBasalPlusActivity() throws {
        // Mifflin-St Jeor for the typical adult: 10 x 72 + 6.25 x 176 - 5 x 35 + 5 = 1650 kcal/day,
        // 1145.83 cal per minute awake, x 0.92 = 1054.17 asleep.
        #expect(PersonProfile.typicalAdult.basalMetabolicRateKcalPerDay == 1_650)
        let model = try PhysiologyScenario.v1Day.makeModel()
        let slots = model.slots()
        let offWrist = slots.filter { $0.wearing == 0 }
        #expect(!offWrist.isEmpty)
        #expect(offWrist.allSatisfy { $0.energyCal == 1_146 && $0.activeCal == 0 })
        let asleep = slots.filter { TestSupport.stage(of: $0, in: model) != nil && $0.wearing == 4 }
        #expect(asleep.allSatisfy { $0.energyCal == 1_054 && $0.activeCal == 0 })
        #expect(slots.allSatisfy { ($0.energyCal ?? 0) >= ($0.activeCal ?? 0) })
        // A running minute: (9.8 - 1) MET x 72 kg / 60 = 10.56 kcal active.
        let running = TestSupport.steadySlots(of: .run, in: model, slots: slots)
        #expect(running.allSatisfy { $0.activeCal == 10_560 && $0.energyCal == 10_560 + 1_146 })
    }

    @Test func valuesAreRoundedToTheWireResolution() throws {
        let slots = try PhysiologyScenario.v2ThreeDays.makeModel().slots()
        func isHundredths(_ value: Double?) -> Bool {
            guard let value else { return true }
            return abs(value * 100 - (value * 100).rounded()) < 1e-6
        }
        #expect(slots.allSatisfy {
            isHundredths($0.breath) && isHundredths($0.speed) && isHundredths($0.skinTempC) && isHundredths($0.edaMicrosiemens)
        })
        #expect(slots.allSatisfy { ($0.battery.map { (0...100).contains($0) }) ?? false })
    }

    @Test func v1HasNoV2FieldsAndV2HasThemWhenWorn() throws {
        let v1 = try PhysiologyScenario.v1Day.makeModel()
        #expect(v1.deviceModel == .v1)
        #expect(v1.slots().allSatisfy {
            $0.spo2 == nil && $0.spo2Quality == nil && $0.coreTempC == nil && $0.edaMicrosiemens == nil
        })
        let v2 = try PhysiologyScenario.v2ThreeDays.makeModel()
        #expect(v2.slots().filter { $0.wearing == 4 }.allSatisfy {
            $0.spo2 != nil && $0.spo2Quality != nil && $0.coreTempC != nil && $0.edaMicrosiemens != nil
        })
    }
}
