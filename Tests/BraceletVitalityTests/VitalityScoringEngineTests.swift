import Testing
@testable import BraceletVitality

/// Scores worked out by hand from the anchors documented in Scoring.md.
@Suite struct VitalityScoringEngineTests {
    func score(_ field: VitalityField, _ value: Double, age: Int, hrvType: HRVType? = nil) -> Double? {
        ReferenceRanges.curve(for: field, age: age, hrvType: hrvType).score(value)
    }

    @Test func curvesInterpolateBetweenAnchorsAndClampOutside() {
        #expect(score(.sleepDurationHours, 6.5, age: 30) == 75)     // 6 h -> 50, 7 h -> 100
        #expect(score(.sleepDurationHours, 8, age: 30) == 100)
        #expect(score(.restingHeartRate, 120, age: 30) == 0)         // beyond the last anchor
        #expect(score(.restingHeartRate, 25, age: 30) == 60)         // before the first anchor
        #expect(score(.restingHeartRate, 62, age: 30) == 97)         // 60 -> 100, 70 -> 85
        #expect(score(.awakePercent, 6, age: 30) == 92)              // 5 -> 100, 10 -> 60
    }

    @Test func ageBandsChangeTheScore() {
        // Sleep: 65+ recommended 7-8 h, may be appropriate 5-9 h (NSF 2015).
        #expect(score(.sleepDurationHours, 6.5, age: 70) == 87.5)    // 5 -> 50, 7 -> 100
        #expect(score(.sleepDurationHours, 9.5, age: 70) == 37.5)    // 9 -> 50, 11 -> 0
        #expect(score(.sleepDurationHours, 9.5, age: 22) == 87.5)    // 18-25: 9 -> 100, 11 -> 50
        // Steps: plateau from 6000-8000 at 60+, 8000-10000 below (Paluch 2022).
        #expect(score(.steps, 7000, age: 65) == 95)                  // 6000 -> 90, 8000 -> 100
        #expect(close(score(.steps, 7000, age: 30), 70 + 20 * 1200.0 / 2200))
        // HRV reference falls with age and differs by type: 38 ms is the RMSSD reference (80) at 35,
        // but below the SDNN reference of 50 ms (20 -> 0, 35 -> 50, 50 -> 80).
        #expect(close(score(.hrvMs, 38, age: 35, hrvType: .rmssd), 80))
        #expect(close(score(.hrvMs, 38, age: 35, hrvType: .sdnn), 56))
        #expect(close(score(.hrvMs, 38, age: 65, hrvType: .sdnn), 80 + 20 * 3 / 17.5)) // ref 35 at 60-69
    }

    @Test func minimalWindowScoresOnlyWhatIsPresent() throws {
        // Apple sample, age 40: sleep 7 h (100), steps 6071 (70 + 20 x 271/2200), RHR 62 (97).
        let days = dated(try loadFixture("rook_sample_apple_minimal"), age: 40)
        let window = try VitalityWindowBuilder().build(from: days, age: 40)
        let s = try VitalityScoringEngine.score(window.metrics)
        let steps = 70 + 20 * 271.0 / 2200
        #expect(s.pillar(.sleep)?.score == 100)
        #expect(close(s.pillar(.movement)?.score, steps))
        #expect(close(s.pillar(.stressRecovery)?.score, 97))
        #expect(close(s.total, (100 + steps + 97) / 3))
        #expect(s.pillar(.sleep)?.excluded == [.restorativeSleepPercent, .sleepEfficiencyPercent, .awakePercent])
        #expect(s.metric(.hrvMs) == nil)
    }

    @Test func fullWindowPillarsAreWeightedMeans() throws {
        // Whoop sample, age 42: sleep 7.5 h (100), restorative 35 % (100 at 40-59), efficiency 90 %
        // (100), awake 6 % (92) -> 0.4 x 100 + 0.2 x 100 + 0.25 x 100 + 0.15 x 92 = 98.8.
        let days = dated(try loadFixture("rook_sample_whoop_full"), age: 42)
        let s = try VitalityScoringEngine.score(try VitalityWindowBuilder().build(from: days, age: 42).metrics)
        #expect(close(s.pillar(.sleep)?.score, 98.8, 1e-9))
        // HRV 62 ms SDNN at 40-49 (ref 45: 45 -> 80, 67.5 -> 100) -> 80 + 20 x 17 / 22.5.
        #expect(close(s.metric(.hrvMs)?.score, 80 + 20 * 17 / 22.5))
        #expect(s.metric(.hrvMs)?.reference.ageBand == "40-49 y sdnn")
    }

    @Test func missingMetricsAreExcludedNotZeroed() throws {
        let onlySteps = try VitalityScoringEngine.score(VitalityRawMetrics(age: 30, steps: 10_000))
        #expect(onlySteps.pillar(.movement)?.score == 100)  // not 40, which zeros would give
        #expect(onlySteps.pillar(.sleep)?.score == nil)
        #expect(onlySteps.pillar(.stressRecovery)?.score == nil)
        #expect(onlySteps.total == 100)                      // mean over the one pillar with data

        let nothing = try VitalityScoringEngine.score(VitalityRawMetrics(age: 30))
        #expect(nothing.total == nil)
        #expect(nothing.pillars.allSatisfy { $0.score == nil && $0.metrics.isEmpty })
    }

    @Test func agesOutsideTheDocumentedRangesAreRejected() {
        #expect(throws: VitalityScoringError.unsupportedAge(17)) { try VitalityScoringEngine.score(VitalityRawMetrics(age: 17)) }
        #expect(throws: VitalityScoringError.unsupportedAge(121)) { try VitalityScoringEngine.score(VitalityRawMetrics(age: 121)) }
    }
}
