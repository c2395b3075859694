import Foundation
import Testing
@testable import BraceletVitality

/// A ROOK file written with the ROOK SDK's own field names (`RookSleepSummary`,
/// `RookPhysicalSummary`, `RookActivityEvent`) reads and scores as the snake_case file does.
@Suite struct ROOKSDKNamesTests {
    /// Seven days of values, by snake_case key, for every field the mapping reads.
    static func values(day i: Int) -> (sleep: [String: Any], physical: [String: Any], event: [String: Any]) {
        (sleep: ["sleep_duration_seconds_int": 25_200 + 600 * i, "time_in_bed_seconds_int": 27_000 + 600 * i,
                 "time_awake_during_sleep_seconds_int": 1_500, "rem_sleep_duration_seconds_int": 5_400,
                 "deep_sleep_duration_seconds_int": 4_800, "light_sleep_duration_seconds_int": 15_000,
                 "sleep_efficiency_1_100_score_int": 92, "hrv_sdnn_ms_double": 48.5 + Double(i), "hrv_rmssd_ms_double": 35.0,
                 "hr_resting_bpm_int": 55, "breaths_avg_per_min_int": 14],
         physical: ["steps_int": 8_000 + 500 * i, "active_seconds_int": 2_700, "active_calories_kcal_double": 420.5,
                    "total_calories_kcal_double": 2_350.0, "hr_resting_bpm_int": 57, "hrv_sdnn_avg_ms": 50.0, "hrv_rmssd_avg_ms": 38.0],
         event: ["type": "running", "duration_seconds_int": 1_800, "calories_burned_kcal": 300.0])
    }

    /// The file in snake_case, or with the SDK's names and every other field of the SDK's models.
    static func file(sdk: Bool) throws -> Data {
        func rename(_ object: [String: Any], _ names: [(sdk: String, key: String)], unused: Set<String>) -> [String: Any] {
            guard sdk else { return object }
            var out: [String: Any] = [:]
            for (key, value) in object {
                out[names.first { $0.key == key }?.sdk ?? key] = value
            }
            // The SDK's fields the score does not use come along in a real SDK object: accepted, not read.
            for name in unused { out[name] = ["granular": [1, 2], "note": "not read"] }
            return out
        }
        let days: [[String: Any]] = (0..<7).map { i in
            let v = values(day: i)
            return ["date": "2026-01-0\(i + 1)",
                    sdk ? "sleepSummary" : "sleep_summary": rename(v.sleep, ROOKSDKNames.sleep, unused: ROOKSDKNames.sleepUnused),
                    sdk ? "physicalSummary" : "physical_summary": rename(v.physical, ROOKSDKNames.physical, unused: ROOKSDKNames.physicalUnused),
                    sdk ? "activityEvents" : "activity_events": [rename(v.event, ROOKSDKNames.event, unused: ROOKSDKNames.eventUnused)]]
        }
        return try JSONSerialization.data(withJSONObject: ["days": days])
    }

    @Test func theSDKsOwnNamesCoverEveryFieldOfItsThreeModels() {
        // The seed's models: RookSleepSummary 50 fields, RookPhysicalSummary 61, RookActivityEvent 90.
        #expect(ROOKSDKNames.sleep.count + ROOKSDKNames.sleepUnused.count == 50)
        #expect(ROOKSDKNames.physical.count + ROOKSDKNames.physicalUnused.count == 61)
        #expect(ROOKSDKNames.event.count + ROOKSDKNames.eventUnused.count == 90)
        // Every field the mapping reads has an SDK name except our active_minutes_total_int.
        #expect(Set(ROOKKeys.sleep).subtracting(ROOKSDKNames.sleep.map(\.key)).isEmpty)
        #expect(Set(ROOKKeys.physical).subtracting(ROOKSDKNames.physical.map(\.key)) == ["active_minutes_total_int"])
        #expect(Set(ROOKKeys.event).subtracting(ROOKSDKNames.event.map(\.key)).isEmpty)
    }

    @Test func aFileWithTheSDKsNamesScoresAsTheSnakeCaseFile() throws {
        let snake = try ROOKInputFile.decode(try Self.file(sdk: false))
        let sdk = try ROOKInputFile.decode(try Self.file(sdk: true))
        #expect(sdk.warnings.isEmpty)
        #expect(sdk.days == snake.days)
        let first = try #require(sdk.days.first)
        #expect(first.sleepSummary?.timeInBedSecondsInt == 27_000)
        #expect(first.sleepSummary?.hrvSdnnMsDouble == 48.5)
        #expect(first.physicalSummary?.stepsInt == 8_000)
        #expect(first.physicalSummary?.activeSecondsInt == 2_700)
        #expect(first.activityEvents?.first?.type == "running")
        let builder = VitalityWindowBuilder(now: 1_800_000_000)
        let a = try ScoreReport.make(rook: snake, age: 40, builder: builder, source: "rook")
        let b = try ScoreReport.make(rook: sdk, age: 40, builder: builder, source: "rook")
        #expect(a.json() == b.json())
        #expect(b.window.daysWithAnyData == 7)
        #expect(b.window.metrics.sleepDurationHours == 7.5)     // (25200 + 600 x 3) s average
        #expect(b.window.metrics.steps == 9_500)
        #expect(b.window.metrics.movementMinutes == 45)         // activeSeconds 2700 / 60
        #expect(b.window.metrics.hrvMs == 51.5)                 // nightly SDNN (48.5 + 3), not the daily one
        #expect(b.window.metrics.hrvType == .sdnn)
        #expect(b.window.metrics.restingHeartRate == 55)        // the night's, before the day's 57
        #expect(b.scores.total != nil)
    }

    @Test func oneFieldInTwoSpellingsIsReadOnceOrRefusedWhenTheyDisagree() throws {
        let same = #"{"days": [{"date": "2026-01-05", "physical_summary": {"steps_int": 9000, "stepsPerDayNumber": 9000}}]}"#
        let file = try ROOKInputFile.decode(Data(same.utf8))
        #expect(file.days.first?.physicalSummary?.stepsInt == 9_000)
        #expect(file.warnings == ["days[0].physical_summary gives steps_int twice, as steps_int and as stepsPerDayNumber, with the same value: read once"])
        let differ = #"{"days": [{"date": "2026-01-05", "physical_summary": {"steps_int": 9000, "stepsPerDayNumber": 9100}}]}"#
        #expect(throws: ROOKInputError.conflictingSpellings(path: "days[0].physical_summary", keys: ["steps_int", "stepsPerDayNumber"])) {
            try ROOKInputFile.decode(Data(differ.utf8))
        }
    }

    @Test func activeMinutesComeBeforeActiveSeconds() {
        let both = ROOKPhysicalSummary(activeMinutesTotalInt: 30, activeSecondsInt: 2_700)
        #expect(ROOKDataAdapter.map(age: 40, sleepSummary: nil, physicalSummary: both, activityEvents: nil).0.movementMinutes == 30)
        let zeroMinutes = ROOKPhysicalSummary(activeMinutesTotalInt: 0, activeSecondsInt: 1_530)
        #expect(ROOKDataAdapter.map(age: 40, sleepSummary: nil, physicalSummary: zeroMinutes, activityEvents: nil).0.movementMinutes == 25.5)
    }

    @Test func theHelpListsEveryKeyReadWithItsSDKName() {
        let help = ROOKInputFile.keysRead
        for (name, key) in ROOKSDKNames.sleep + ROOKSDKNames.physical + ROOKSDKNames.event {
            #expect(help.contains("\(key)/\(name)"), "\(key)/\(name)")
        }
        for key in ROOKKeys.sleep + ROOKKeys.physical + ROOKKeys.event + ROOKKeys.coverage {
            #expect(help.contains(key), "\(key)")
        }
        #expect(help.contains("light_sleep_duration_seconds_int/lightSleepDurationSeconds*"))
        #expect(!help.contains("hrGranularDataBPM"))  // recognised, not read: not listed as read
    }
}
