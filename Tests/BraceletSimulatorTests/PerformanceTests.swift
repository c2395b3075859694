import BraceletSimulator
import Foundation
import Testing

@Suite struct PerformanceTests {
    /// 30 days of 60-second slots (43 200) and a night of beats (~30 000). The budget is generous for a
    /// debug build on a busy machine; the release build is far faster (see the report).
    @Test func thirtyDaysAndANightOfBeatsAreQuick() throws {
        let model = try PhysiologyModel.simulatedHistory(model: .v2, serial: "SIM00002", days: 30, seed: 11,
                                                         endingAt: 1_800_000_000)
        let clock = ContinuousClock()
        var slotCount = 0
        let slotTime = clock.measure { slotCount = model.slots().count }
        #expect(slotCount == 43_200)
        let night = try #require(model.sleepPeriods.first { $0.kind == .night && $0.start > model.start + 86_400 })
        var beatCount = 0
        let beatTime = clock.measure { beatCount = model.beats(from: night.start, to: night.end).count }
        #expect(beatCount > 25_000)
        print("physiology: \(slotCount) slots in \(slotTime), \(beatCount) beats in \(beatTime)")
        #expect(slotTime < .seconds(5))
        #expect(beatTime < .seconds(5))
    }
}
