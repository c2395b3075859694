import BraceletDecoder
import Foundation
import Testing
@testable import BraceletSummaries

/// Hand-computed daily summaries. Configuration: hrMax 180 -> T50 90, T60 108, T70 126, T80 144,
/// T90 162; height 170 cm; goal 10 000; UTC; 60 s slots.
@Suite struct DailySummaryTests {
    /// Minute samples at 08:00...08:08 on 2026-01-15, one per zone plus excluded ones.
    static var zoneMorning: [Slot] {
        [
            slot(at(8, 0), bpm: 89, breath: 14.0, breathQ: 3, steps: 100, activity: 2, speed: 1.2, energy: 5000, active: 3000,
                 skin: 33.0, core: 37.0, spo2: 97, spo2Q: 3, eda: 0.5),
            slot(at(8, 1), bpm: 90, breath: 16.5, breathQ: 2, steps: 50, activity: 2, speed: 1.0, energy: 4000, active: 2000,
                 skin: 34.0, core: 37.4, spo2: 99, spo2Q: 1, eda: 1.5),
            slot(at(8, 2), bpm: 108, q: 2, breath: 30, breathQ: 1, spo2: 95, spo2Q: 4),
            slot(at(8, 3), bpm: 126, q: 3),
            slot(at(8, 4), bpm: 144),
            slot(at(8, 5), bpm: 162),
            slot(at(8, 6), bpm: 200, q: 1),                    // quality 1 < 2: not counted
            slot(at(8, 7), bpm: 50, wearing: 0, skin: 20.0),  // not worn: not counted
            slot(at(8, 8), bpm: 61, wearing: nil),            // wearing unknown: counted
            slot(at(9, 30), steps: 10, activity: 7, energy: 1000, active: 0),
        ]
    }

    @Test func heartRateStatisticsAndZones() throws {
        let day = try #require(try engine(Self.zoneMorning).day("2026-01-15"))
        // counted: 89 90 108 126 144 162 61 -> 780 / 7 = 111.43
        #expect(day.bpm.averageBPM == 111)
        #expect(day.bpm.lastBPM == 61)
        #expect(day.bpm.maxDayBPM == 162)
        #expect(day.bpm.minDayBPM == 61)
        // rest: 89 and 61 = 2 min of 7 (28.6 % -> 29); every other zone 1 min (14.3 % -> 14)
        #expect(day.bpm.durationRestZone == 2)
        #expect(day.bpm.percentageRestZone == 29)
        #expect(day.bpm.durationWarmUpZone == 1)
        #expect(day.bpm.durationFatBurnZone == 1)
        #expect(day.bpm.durationEnduranceZone == 1)
        #expect(day.bpm.durationPerformanceZone == 1)
        #expect(day.bpm.durationMaxZone == 1)
        #expect(day.bpm.percentageWarmUpZone == 14)
        #expect(day.bpm.percentageMaxZone == 14)
        #expect(day.bpm.slots.map(\.bpm) == [89, 90, 108, 126, 144, 162, 61])
        #expect(day.bpm.slots.first?.intervalDate == at(8, 0))
        // 7 minutes of data: no 30-minute window with 24 minutes
        #expect(day.bpm.dailyRestingBPM == nil)
    }

    @Test func breathSpo2TemperaturesAndEDA() throws {
        let day = try #require(try engine(Self.zoneMorning).day("2026-01-15"))
        // breath 14.0 (q3) and 16.5 (q2) count, 30 (q1) does not: mean 15.25
        #expect(day.breath.averageBreath == 15)
        #expect(day.breath.lastBreath == 17) // 16.5 rounds half away from zero
        #expect(day.breath.maxDayBreath == 17)
        #expect(day.breath.minDayBreath == 14)
        #expect(day.breath.slots == [BreathSlot(intervalDate: at(8, 0), brpm: 14, brpmQ: 3),
                                     BreathSlot(intervalDate: at(8, 1), brpm: 17, brpmQ: 2)])
        // SpO2 97 (q3) and 95 (q4); 99 has quality 1
        #expect(day.spo2.averageSpo2 == 96)
        #expect(day.spo2.lastSpo2 == 95)
        #expect(day.spo2.maxDaySpo2 == 97)
        // skin 33.0 and 34.0; 20.0 was not worn
        #expect(day.bodyTemp.averageTemp == 33.5)
        #expect(day.bodyTemp.lastTemp == 34.0)
        #expect(day.bodyTemp.maxDayTemp == 34.0)
        #expect(abs((day.coreBodyTemperature.averageCoreBodyTemperature ?? 0) - 37.2) < 1e-9)
        #expect(day.coreBodyTemperature.lastCoreBodyTemperature == 37.4)
        #expect(day.emography.stressLevelSkinConductanceAvg == 1.0)
        #expect(day.emography.stressLevelSkinConductanceLast == 1.5)
        #expect(day.emography.stressLevelSkinConductanceMax == 1.5)
        #expect(day.emography.slots.count == 2)
    }

    @Test func stepsActivityAndCalories() throws {
        let day = try #require(try engine(Self.zoneMorning).day("2026-01-15"))
        #expect(day.steps.stepCount == 160)
        // 160 x 170 x 0.414 / 100 = 112.608 m
        #expect(abs((day.steps.stepDistance ?? 0) - 112.608) < 1e-9)
        #expect(day.activity.distance == 113)
        #expect(day.steps.stepCalories == 10.0)   // 5000 + 4000 + 1000 cal total
        #expect(day.activity.calories == 5.0)     // 3000 + 2000 + 0 cal active
        #expect(day.steps.goalStepPercentage == 2) // 160 / 10000 = 1.6 %
        #expect(day.steps.moveEveryHour == 2)      // hours 08 and 09
        let first = try #require(day.steps.slots.first)
        #expect(first == StepsSlot(intervalDate: at(8, 0), stepCount: 100, energyExp: 5.0, speed: 1.2, activityType: 2,
                                   distance: 70)) // 70.38 m
        // 08:00-08:05 are active (walk or HR >= 108) but only 6 minutes: no workout
        #expect(day.steps.workoutsCount == 0)
    }

    @Test func workoutNeedsTenConsecutiveActiveMinutes() throws {
        var samples = (0..<12).map { slot(at(10, $0), bpm: 130, steps: 150, activity: 4) }   // 12 min running
        samples += (0..<9).map { slot(at(12, $0), steps: 80, activity: 6) }                // 9 min cycling
        samples += (0..<10).map { slot(at(15, $0), bpm: 108) }                             // 10 min at exactly T60
        samples += (0..<10).map { slot(at(17, $0), bpm: 107) }                             // 10 min just below T60
        let day = try #require(try engine(samples).day("2026-01-15"))
        #expect(day.steps.workoutsCount == 2)
        #expect(day.steps.workouts.first == Workout(start: at(10, 0), stop: at(10, 12), steps: 1800, averageBPM: 130, activityType: 4))
        #expect(day.steps.workouts.last == Workout(start: at(15, 0), stop: at(15, 10), steps: nil, averageBPM: 108, activityType: nil))
        #expect(day.steps.workouts.first?.durationSeconds == 720)
    }

    @Test func slotValueIsTheMeanOfTheSamplesInIt() throws {
        // six 10-second samples in one minute: 60 62 64 66 68 70 -> slot 65; one with quality 0 is left out
        var samples = [60, 62, 64, 66, 68, 70].enumerated().map { slot(at(6, 0, $0.offset * 10), 10, bpm: $0.element) }
        samples.append(slot(at(6, 1, 0), 10, bpm: 150, q: 0))
        let day = try #require(try engine(samples).day("2026-01-15"))
        #expect(day.bpm.slots == [BPMSlot(intervalDate: at(6, 0), bpm: 65)])
        #expect(day.bpm.durationRestZone == 1) // 6 x 10 s counted
    }

    @Test func longerSummarySlotsAverageMoreSamples() throws {
        let samples = [60, 70, 80, 90, 100].enumerated().map { slot(at(6, $0.offset), bpm: $0.element) }
        let day = try #require(try engine(samples, configuration: utcConfiguration(slotSeconds: 300)).day("2026-01-15"))
        #expect(day.bpm.slots == [BPMSlot(intervalDate: at(6, 0), bpm: 80)])
    }

    @Test func dailyRestingHeartRateNeeds24Of30Minutes() throws {
        // 24 minutes at 40 BPM inside two hours at 70: every window is full, the best holds 24 x 40 and 6 x 70
        let enough = (0..<60).map { slot(at(2, $0), bpm: 70) } + (0..<24).map { slot(at(3, $0), bpm: 40) }
            + (24..<60).map { slot(at(3, $0), bpm: 70) }
        let day = try #require(try engine(enough).day("2026-01-15"))
        #expect(day.bpm.dailyRestingBPM == 46) // (24 x 40 + 6 x 70) / 30 = 46
        // the same 24 minutes with nothing around: a window of those 24 minutes alone is valid
        let alone = (0..<24).map { slot(at(3, $0), bpm: 40) }
        #expect(try engine(alone).day("2026-01-15")?.bpm.dailyRestingBPM == 40)
        // only 23 minutes with data: no window qualifies
        let short = (0..<23).map { slot(at(3, $0), bpm: 40) }
        #expect(try engine(short).day("2026-01-15")?.bpm.dailyRestingBPM == nil)
        // exactly 24 minutes with data inside 30: the mean of those 24
        let gappy = (0..<24).map { slot(at(3, $0), bpm: 40 + ($0 % 2) * 2) }
        #expect(try engine(gappy).day("2026-01-15")?.bpm.dailyRestingBPM == 41)
    }

    @Test func nothingCountedGivesNilNotZero() throws {
        let samples = [slot(at(8, 0), bpm: 70, q: 1, steps: nil)]
        let day = try #require(try engine(samples).day("2026-01-15"))
        #expect(day.bpm.averageBPM == nil)
        #expect(day.bpm.durationRestZone == nil)
        #expect(day.bpm.percentageRestZone == nil)
        #expect(day.steps.stepCount == nil)
        #expect(day.steps.goalStepPercentage == nil)
        #expect(day.steps.moveEveryHour == nil)
        #expect(day.activity.calories == nil)
        #expect(day.breath.averageBreath == nil)
        #expect(day.sleepHRV == nil)
    }

    @Test func seedExampleDayReadsBack() throws {
        // The Summaries data model's example MetricBPMSummery slots of 2022-02-01 (5-minute samples)
        let base: Int64 = 1_643_673_600
        let bpms = [89, 79, 81, 75, 69, 65, 60, 57]
        let samples = bpms.enumerated().map { slot(base + Int64($0.offset * 300), 300, bpm: $0.element) }
        let day = try #require(try engine(samples).day("2022-02-01"))
        #expect(day.bpm.averageBPM == 72) // 575 / 8 = 71.875
        #expect(day.bpm.lastBPM == 57)
        #expect(day.bpm.maxDayBPM == 89)
        #expect(day.bpm.durationRestZone == 40) // 8 x 5 min, all below T50 = 90
        #expect(day.bpm.percentageRestZone == 100)
        #expect(day.bpm.percentageWarmUpZone == 0)
        #expect(day.bpm.slots.count == 8)
    }
}
