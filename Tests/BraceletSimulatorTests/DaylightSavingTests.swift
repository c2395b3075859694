import BraceletSimulator
import Testing

@Suite struct DaylightSavingTests {
    @Test func theRangeHasTheTwentyFiveHourDay() throws {
        let model = try PhysiologyScenario.v2DaylightSaving.makeModel()
        // 2026-10-24 00:00 CEST (UTC+2) to 2026-10-27 00:00 CET (UTC+1): 24 + 25 + 24 = 73 hours.
        #expect(model.start == 1_792_792_800)
        #expect(model.end == 1_793_055_600)
        #expect(model.slotCount == 73 * 60)
        #expect(model.utcOffsetSeconds(at: model.start) == 7_200)
        #expect(model.utcOffsetSeconds(at: model.end) == 3_600)
        #expect(model.localTime(at: model.start) == LocalTime(hour: 0))
        #expect(model.localTime(at: model.end) == LocalTime(hour: 0))
    }

    @Test func localBedtimeStaysAndTheUtcBedtimeMoves() throws {
        let model = try PhysiologyScenario.v2DaylightSaving.makeModel()
        let nights = model.sleepPeriods.filter { $0.kind == .night }
        #expect(nights.count == 4)  // 23 Oct (ends in range) ... 26 Oct (starts in range)
        for night in nights {
            // Bedtime 23:00 with at most 10 minutes of jitter, wake 07:00 likewise, local time.
            let bed = model.localTime(at: night.start).minutesAfterMidnight
            let wake = model.localTime(at: night.end).minutesAfterMidnight
            #expect(bed >= 22 * 60 + 50 || bed <= 10 - 1)
            #expect(abs(wake - 7 * 60) <= 10)
        }
        // In UTC the bedtime moves an hour later after the change: ~21:00Z before, ~22:00Z after.
        func utcMinutes(_ t: Int64) -> Int64 { (t % 86_400) / 60 }
        let before = nights.filter { model.utcOffsetSeconds(at: $0.start) == 7_200 }
        let after = nights.filter { model.utcOffsetSeconds(at: $0.start) == 3_600 }
        #expect(before.count == 2 && after.count == 2)
        #expect(before.allSatisfy { abs(utcMinutes($0.start) - 21 * 60) <= 10 })
        #expect(after.allSatisfy { abs(utcMinutes($0.start) - 22 * 60) <= 10 })
        // The night of the change lasts an hour longer: ~9 h between 23:00 CEST and 07:00 CET.
        let changeNight = nights[1]
        #expect(abs(changeNight.end - changeNight.start - 9 * 3_600) <= 20 * 60)
    }

    @Test func dailyWalksKeepTheirLocalTime() throws {
        let model = try PhysiologyScenario.v2DaylightSaving.makeModel()
        let lunchWalks = model.activities.filter { $0.kind == .walk && model.localTime(at: $0.start).hour == 12 }
        #expect(lunchWalks.count == 3)
        #expect(lunchWalks.allSatisfy { abs(model.localTime(at: $0.start).minutesAfterMidnight - (12 * 60 + 30)) <= 5 })
    }
}
