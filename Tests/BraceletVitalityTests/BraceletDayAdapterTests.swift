import Foundation
import Testing
@testable import BraceletVitality

/// The bracelet adapter applies the same rules to a day of bracelet summaries.
@Suite struct BraceletDayAdapterTests {
    let full = BraceletDay(
        date: date("2026-01-05"),
        totalSleepSeconds: 25200, deepSleepSeconds: 3600, remSleepSeconds: 5400, awakeSeconds: 2520,
        timeInBedSeconds: 28800, movementMinutes: 52, workoutDurationsSeconds: [1800], steps: 8123,
        activeEnergyKcal: 388, totalEnergyKcal: 2210, nightlySDNNMs: 48.5, nightlyRMSSDMs: 39,
        sleepRestingHeartRate: 57, dailyRestingHeartRate: 63, sleepBreathingRate: 15.5, dailyAverageBreathingRate: 17)

    @Test func fullDayMapsEveryMetric() {
        let (m, missing) = vitalityMetrics(for: full, age: 44)
        #expect(m.age == 44)
        #expect(m.sleepDurationHours == 7)                   // 25200 / 3600
        #expect(close(m.restorativeSleepPercent, 100.0 * 9000 / 25200)) // 35.714...
        #expect(close(m.sleepEfficiencyPercent, 87.5))       // 25200 / 28800
        #expect(close(m.awakePercent, 8.75))                 // 2520 / 28800
        #expect(m.movementMinutes == 52)                     // minute data, workouts ignored
        #expect(m.steps == 8123)
        #expect(m.activeCalories == 388)
        #expect(m.hrvMs == 48.5)
        #expect(m.hrvType == .sdnn)
        #expect(m.restingHeartRate == 57)
        #expect(m.breathingRate == 15.5)
        #expect(missing.isEmpty)
    }

    @Test func fallbacksUseDailyValuesAndWorkouts() {
        var day = full
        day.nightlySDNNMs = nil
        day.sleepRestingHeartRate = nil
        day.sleepBreathingRate = nil
        day.movementMinutes = nil
        day.workoutDurationsSeconds = [1800, 600, 300] // 2700 s = 45 min
        let (m, missing) = vitalityMetrics(for: day, age: 44)
        #expect(m.hrvMs == 39)
        #expect(m.hrvType == .rmssd)
        #expect(m.restingHeartRate == 63)
        #expect(m.breathingRate == 17)
        #expect(m.movementMinutes == 45)
        #expect(missing.isEmpty)
    }

    @Test func missingInputsStayNilAndAreExplained() {
        let day = BraceletDay(date: date("2026-01-05"), totalSleepSeconds: 25200, timeInBedSeconds: 0, totalEnergyKcal: 2210)
        let (m, missing) = vitalityMetrics(for: day, age: 44)
        #expect(m.sleepDurationHours == 7)
        #expect(m.sleepEfficiencyPercent == nil)
        #expect(m.activeCalories == nil)
        #expect(m.movementMinutes == nil)
        #expect(m.steps == nil)
        let reasons = Dictionary(missing.map { ($0.field, $0.reason) }, uniquingKeysWith: { a, _ in a })
        #expect(reasons[.sleepEfficiencyPercent] == "BraceletDay.timeInBedSeconds is 0 s, so efficiency is undefined")
        #expect(reasons[.activeCalories]?.contains("BraceletDay.totalEnergyKcal (2210 kcal) is present") == true)
        #expect(reasons[.movementMinutes] == "BraceletDay.movementMinutes is missing, and the fallback BraceletDay.workoutDurationsSeconds has no entries")
        #expect(reasons[.hrvMs] == "BraceletDay.nightlySDNNMs is missing; BraceletDay.nightlyRMSSDMs is missing")
        // Only sleep duration can be computed from these inputs; the other nine are logged.
        #expect(missing.count == 9)
        #expect(Set(missing.map(\.field)) == Set(VitalityField.allCases).subtracting([.sleepDurationHours]))
    }

    @Test func nonFiniteInputIsTreatedAsMissing() {
        let day = BraceletDay(date: date("2026-01-05"), totalSleepSeconds: .nan, steps: 100, nightlySDNNMs: .infinity)
        let (m, missing) = vitalityMetrics(for: day, age: 30)
        #expect(m.sleepDurationHours == nil)
        #expect(m.hrvMs == nil)
        #expect(m.steps == 100)
        #expect(missing.contains { $0.field == .sleepDurationHours && $0.reason.contains("not a finite number") })
    }
}

/// The JSON the sync layer stores per day reads back unchanged, with nil kept as nil.
@Suite struct StoredVitalityMetricsTests {
    @Test func roundTripKeepsNilAndHRVType() throws {
        let day = BraceletDay(date: date("2026-01-05"), totalSleepSeconds: 27000, steps: 8000, nightlyRMSSDMs: 41)
        let (metrics, _) = vitalityMetrics(for: day, age: 44)
        let json = try StoredVitalityMetrics.encode(metrics)
        let text = String(decoding: json, as: UTF8.self)
        #expect(text.contains(#""hrvType":"rmssd""#))
        #expect(text.contains(#""activeCalories":null"#))
        let back = try StoredVitalityMetrics.decode(localDate: "2026-01-05", json: json)
        #expect(back.date == date("2026-01-05"))
        #expect(back.metrics == metrics)
    }

    @Test func damagedRowsNameTheDay() {
        #expect(throws: StoredVitalityMetricsError.badDate("2026/01/05")) {
            try StoredVitalityMetrics.decode(localDate: "2026/01/05", json: Data("{}".utf8))
        }
        do {
            _ = try StoredVitalityMetrics.decode(localDate: "2026-01-05", json: Data(#"{"age":"x"}"#.utf8))
            Issue.record("a string age must not decode")
        } catch {
            #expect(error.description.contains("2026-01-05"))
            #expect(error.description.contains("age is not number"))
            #expect(error.description.contains("ROOK") == false) // a database row, not a ROOK file
        }
    }
}
