import BraceletDecoder
import BraceletSimulator
import Testing

@Suite struct WearAndBatteryTests {
    @Test func offWristSlotsHaveNoBodyValuesAndWornSlotsNeverZero() throws {
        for model in try TestSupport.allScenarioModels() {
            let slots = model.slots()
            let off = slots.filter { $0.wearing == 0 }
            // One shower a day, at least ~9 minutes each.
            let days = Int((model.end - model.start + 86_399) / 86_400)
            #expect(off.count >= 9 * days)
            #expect(off.allSatisfy {
                $0.bpm == nil && $0.bpmQuality == nil && $0.breath == nil && $0.skinTempC == nil && $0.coreTempC == nil
                    && $0.spo2 == nil && $0.edaMicrosiemens == nil && $0.sleepStage == nil && $0.steps == nil
            })
            #expect(off.allSatisfy { slot in
                model.offWristPeriods.contains { slot.start + 30 >= $0.start && slot.start + 30 < $0.end }
            })
            let worn = slots.filter { $0.wearing == 4 }
            #expect(worn.count + off.count == slots.count)
            #expect(worn.allSatisfy { ($0.bpm ?? 0) > 0 && ($0.breath ?? 0) > 0 })
        }
    }

    @Test func batteryDrainsSlowlyAndChargesOffWrist() throws {
        let model = try PhysiologyScenario.v1Day.makeModel()
        // Starts at 46 %, loses 0.55 %/h: 07:30 local is 7.5 h in, 46 - 4.1 = 41.9 %, under 45 %: charge.
        let charges = model.offWristPeriods.filter(\.isCharging)
        #expect(charges.count == 1)
        let charge = try #require(charges.first)
        #expect(model.batteryPercent(at: model.start) == 46)
        #expect((41...43).contains(model.batteryPercent(at: charge.start)))
        // 1.5 %/min from ~42 %: full after ~39 minutes; the bracelet goes back on 3 minutes later.
        #expect((41 * 60...45 * 60).contains(charge.end - charge.start))
        #expect(model.batteryPercent(at: charge.end) == 100)
        let slots = model.slots()
        for (earlier, later) in zip(slots, slots.dropFirst()) {
            let charging = charges.contains { later.start >= $0.start && earlier.start < $0.end }
            if !charging { #expect(later.battery! <= earlier.battery!) }
        }
        // After the charge: 100 % minus 0.55 %/h until midnight.
        let hoursLeft = Double(model.end - charge.end) / 3_600
        #expect(slots.last?.battery == Int((100 - 0.55 * hoursLeft).rounded()))
    }
}
