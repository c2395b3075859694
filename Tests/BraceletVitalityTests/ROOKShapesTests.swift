import BraceletDecoder
import Foundation
import Testing
@testable import BraceletVitality

/// Both ROOK shapes, unknown keys, the zero rule and the movement fallback.
@Suite struct ROOKShapesTests {
    @Test func theSDKsCamelCaseShapeReadsLikeTheAPIsSnakeCase() throws {
        let snake = try loadFixture("rook_sample_fitbit_rmssd")
        let camel = try loadFixture("rook_sample_sdk_camelcase")
        #expect(camel.warnings.isEmpty)
        #expect(camel.days == snake.days)
        #expect(camel.days.first?.sleepSummary?.timeInBedSecondsInt == 29_000)
        let report = try ScoreReport.make(rook: camel, age: 40, builder: VitalityWindowBuilder(), source: "rook:camel")
        #expect(report.window.metrics.hrvMs == 38) // (35 + 38 + 40 + 36 + 41 + 39 + 37) / 7, as from the snake file
    }

    @Test func aMisspelledKeyIsAnErrorNamingItWhereItIsAndTheAcceptedSpelling() throws {
        // Ignoring it would drop its value silently (time in bed would go missing from every night).
        let json = #"{"days": [{"date": "2026-01-05", "sleep_summary": {"sleep_duration_seconds_int": 27000, "time_in_bed_secs_int": 28800}, "phys_summary": {}}]}"#
        let error = try #require(throws: ROOKInputError.self) { try ROOKInputFile.decode(Data(json.utf8)) }
        #expect(error == .unknownKeys([
            ROOKUnknownKey(path: "days[0]", key: "phys_summary", suggestion: "physical_summary"),
            ROOKUnknownKey(path: "days[0].sleep_summary", key: "time_in_bed_secs_int", suggestion: "time_in_bed_seconds_int"),
        ], total: 2))
        #expect(error.description.contains(#"days[0].sleep_summary: "time_in_bed_secs_int" (did you mean "time_in_bed_seconds_int"?)"#))
        // An SDK name one letter off is suggested in the SDK's spelling.
        let sdk = #"{"days": [{"date": "2026-01-05", "sleepSummary": {"sleepDurationSecond": 27000}}]}"#
        #expect(throws: ROOKInputError.unknownKeys([
            ROOKUnknownKey(path: "days[0].sleep_summary", key: "sleepDurationSecond", suggestion: "sleepDurationSeconds")], total: 1)) {
            try ROOKInputFile.decode(Data(sdk.utf8))
        }
        // Thirty unknown keys: the first ten are named with a suggestion, the rest counted.
        let many = (0..<30).map { #""x\#($0)": 1"# }.joined(separator: ", ")
        let manyError = try #require(throws: ROOKInputError.self) {
            try ROOKInputFile.decode(Data(#"{"days": [{"date": "2026-01-05", "sleep_summary": {\#(many)}}]}"#.utf8))
        }
        guard case let .unknownKeys(listed, total) = manyError else { Issue.record("\(manyError)"); return }
        #expect(listed.count == 10)
        #expect(total == 30)
        #expect(manyError.description.contains("; and 20 more."))
    }

    @Test func theSuggestedKeyIsTheFirstAtTheSmallestEditDistance() {
        // The suggestion skips candidates by length; it must still name the key a full comparison
        // of every candidate names, ties going to the first listed.
        let known = ROOKKeys.sleep + ROOKKeys.sleep.map(ROOKKeys.camelCase)
        let keys = ["time_in_bed_secs_int", "", "x", "HRV", "sleepDuration", "deep_sleep_duration_seconds_intt",
                    String(repeating: "a", count: 300), "Time_In_Bed_Seconds_Int", "hr_resting_bpm"]
        for key in keys {
            let full = known.min { EditDistance.between(key, $0) < EditDistance.between(key, $1) } ?? ""
            #expect(EditDistance.nearest(to: key, in: known) == full, "key \(key)")
        }
        #expect(EditDistance.nearest(to: "hrv_sdnn_ms_doubel", in: known) == "hrv_sdnn_ms_double")
        #expect(EditDistance.nearest(to: "a", in: ["bb", "b", "a"]) == "a")
        #expect(EditDistance.nearest(to: "c", in: ["a", "b"]) == "a")
        #expect(EditDistance.nearest(to: "key", in: []) == nil)
        #expect(EditDistance.between("kitten", "Sitting") == 3)
    }

    @Test func zeroIsMissingForEveryROOKField() throws {
        // sleep_duration 0 and time_in_bed 0 scored a sleep pillar of 0; steps 0 and RHR 0 alike.
        let sleep = ROOKSleepSummary(sleepDurationSecondsInt: 0, timeInBedSecondsInt: 0, hrvSdnnMsDouble: 0, hrRestingBpmInt: 0)
        let physical = ROOKPhysicalSummary(stepsInt: 0, activeMinutesTotalInt: 0, activeCaloriesKcalDouble: 0)
        let (metrics, missing) = ROOKDataAdapter.map(age: 40, sleepSummary: sleep, physicalSummary: physical, activityEvents: nil)
        #expect(metrics.sleepDurationHours == nil)
        #expect(metrics.sleepEfficiencyPercent == nil)
        #expect(metrics.steps == nil)
        #expect(metrics.movementMinutes == nil)
        #expect(metrics.activeCalories == nil)
        #expect(metrics.hrvMs == nil)
        #expect(metrics.restingHeartRate == nil)
        let reason = missing.first { $0.field == .sleepDurationHours }?.reason ?? ""
        #expect(reason.contains("sleep_summary.sleep_duration_seconds_int is 0"))
        #expect(reason.contains("not measured"))
        let score = try VitalityScoringEngine.score(metrics)
        #expect(score.pillar(.sleep)?.score == nil) // excluded, not 0
    }

    @Test func lightEventsAreNotMovementMinutes() {
        let events = [ROOKActivityEvent(type: "light", durationSecondsInt: 3600),
                      ROOKActivityEvent(type: "moderate", durationSecondsInt: 1500),
                      ROOKActivityEvent(type: "Vigorous", durationSecondsInt: 900),
                      ROOKActivityEvent(type: "moderate", durationSecondsInt: 0)]
        let (metrics, _) = ROOKDataAdapter.map(age: 40, sleepSummary: nil, physicalSummary: nil, activityEvents: events)
        #expect(metrics.movementMinutes == 40) // (1500 + 900) / 60; the light hour and the 0 are left out
        let (onlyLight, missing) = ROOKDataAdapter.map(age: 40, sleepSummary: nil, physicalSummary: nil,
                                                       activityEvents: [ROOKActivityEvent(type: "light", durationSecondsInt: 3600)])
        #expect(onlyLight.movementMinutes == nil)
        #expect(missing.first { $0.field == .movementMinutes }?.reason.contains("light-intensity events left out") == true)
    }
}
