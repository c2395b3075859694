import Testing
@testable import BraceletVitality

/// Window averages and coverage, checked against values computed by hand from the 30-day sample
/// (day i = 2025-12-08 + i; absent days i = 6, 7, 17; no sleep summary i = 12, 25; no physical
/// summary i = 20; time in bed 0 on i = 23; no HRV and no sleep RHR on i = 26; active minutes from
/// events (40 min) on i = 27; no active calories on i = 28; RMSSD instead of SDNN on i = 2, 3).
@Suite struct VitalityWindowBuilderTests {
    @Test func lastSevenDaysAverageOverDaysThatHaveEachMetric() throws {
        let days = dated(try loadFixture("rook_sample_multi_day_30"), age: 50)
        let w = try VitalityWindowBuilder(length: 7).build(from: days, age: 50)
        #expect(w.start == date("2025-12-31"))
        #expect(w.end == date("2026-01-06"))       // latest day with data
        #expect(w.daysWithAnyData == 7)
        // Sleep hours on i = 23, 24, 26, 27, 28, 29: 8, 7, 8, 7, 7.5, 8 -> 45.5 / 6.
        #expect(close(w.metrics.sleepDurationHours, 45.5 / 6))
        #expect(w.coverage(of: .sleepDurationHours) == FieldCoverage(field: .sleepDurationHours, daysWithData: 6, daysInWindow: 7))
        // Efficiency: time in bed 0 on i = 23 leaves 5 days.
        #expect(w.coverage(of: .sleepEfficiencyPercent).daysWithData == 5)
        // Steps 7000 + 100 i for i = 23...29 -> 9600.
        #expect(w.metrics.steps == 9600)
        #expect(w.coverage(of: .steps).fraction == 1)
        // RHR: sleep 58, 55, (25: daily 60), (26: daily 60), 58, 55, 56 -> 402 / 7.
        #expect(close(w.metrics.restingHeartRate, 402.0 / 7))
        // SDNN 50 + i % 5 on i = 23, 24, 27, 28, 29: 53, 54, 52, 53, 54 -> 53.2.
        #expect(close(w.metrics.hrvMs, 53.2))
        #expect(w.metrics.hrvType == .sdnn)
        #expect(w.coverage(of: .hrvMs).daysWithData == 5)
        // Movement 45, 30, 35, 40, 40 (events), 30, 35 -> 255 / 7.
        #expect(close(w.metrics.movementMinutes, 255.0 / 7))
        // Active kcal 300 + i without i = 28: 323, 324, 325, 326, 327, 329 -> 1954 / 6.
        #expect(close(w.metrics.activeCalories, 1954.0 / 6))
        #expect(w.coverage(of: .activeCalories).daysWithData == 6)
        #expect(w.metrics.breathingRate == 14)
        #expect(w.notes.isEmpty)
    }

    @Test func thirtyDayWindowNeverMixesHRVTypes() throws {
        let days = dated(try loadFixture("rook_sample_multi_day_30"), age: 50)
        let w = try VitalityWindowBuilder(length: 30).build(from: days, age: 50)
        #expect(w.start == date("2025-12-08"))
        #expect(w.daysWithAnyData == 27)
        #expect(w.coverage(of: .sleepDurationHours).daysWithData == 25)
        #expect(w.coverage(of: .steps).daysWithData == 26)
        // 22 SDNN days averaged, the 2 RMSSD days (i = 2, 3) left out.
        #expect(w.metrics.hrvType == .sdnn)
        #expect(w.coverage(of: .hrvMs).daysWithData == 22)
        #expect(w.notes.count == 1)
        #expect(w.notes.first?.contains("2 day(s) with another type left out") == true)
        // SDNN days: i in 0...29 minus {2, 3, 6, 7, 12, 17, 25, 26}; sum of 50 + i % 5 over them.
        let sdnnDays = (0...29).filter { ![2, 3, 6, 7, 12, 17, 25, 26].contains($0) }
        let expected = Double(sdnnDays.map { 50 + $0 % 5 }.reduce(0, +)) / Double(sdnnDays.count)
        #expect(close(w.metrics.hrvMs, expected))
        #expect(close(w.metrics.hrvMs, 1147.0 / 22)) // the same number worked out by hand
    }

    @Test func explicitEndDateCountsAbsentDaysInTheDenominator() throws {
        let days = dated(try loadFixture("rook_sample_multi_day_30"), age: 50)
        let w = try VitalityWindowBuilder(length: 7, end: date("2025-12-15")).build(from: days, age: 50)
        #expect(w.start == date("2025-12-09"))
        #expect(w.daysWithAnyData == 5)  // Dec 14 and 15 are absent
        #expect(w.coverage(of: .steps) == FieldCoverage(field: .steps, daysWithData: 5, daysInWindow: 7))
        #expect(close(w.coverage(of: .steps).fraction, 5.0 / 7))
        // Steps for i = 1...5: 7100...7500 -> 7300.
        #expect(w.metrics.steps == 7300)
    }

    @Test func insufficientCoverageListsEverythingMissing() {
        // Seven days with only a breathing rate: sleep, steps and HRV/RHR all missing.
        let days = (0..<7).map { i in
            DatedVitalityMetrics(date: date("2026-01-01").adding(days: i), metrics: VitalityRawMetrics(age: 30, breathingRate: 14))
        }
        #expect(throws: VitalityWindowError.insufficientCoverage(
            start: date("2026-01-01"), end: date("2026-01-07"), minimumDays: 4, // half of 7, rounded up
            shortfalls: [CoverageShortfall(requirement: "sleep duration", daysWithData: 0),
                         CoverageShortfall(requirement: "steps", daysWithData: 0),
                         CoverageShortfall(requirement: "HRV or resting heart rate", daysWithData: 0)])) {
            try VitalityWindowBuilder(length: 7).build(from: days, age: 30)
        }
    }

    @Test func minimumDaysIsConfigurable() throws {
        // Sleep on 2 days, steps on 7, RHR on 3.
        let days = (0..<7).map { i in
            DatedVitalityMetrics(date: date("2026-01-01").adding(days: i), metrics: VitalityRawMetrics(
                age: 30, sleepDurationHours: i < 2 ? 7 : nil, steps: 5000, restingHeartRate: i < 3 ? 60 : nil))
        }
        #expect(try VitalityWindowBuilder(length: 7, minimumDays: 2).build(from: days, age: 30).metrics.sleepDurationHours == 7)
        do {
            _ = try VitalityWindowBuilder(length: 7, minimumDays: 3).build(from: days, age: 30)
            Issue.record("3 days of sleep were required, 2 given")
        } catch {
            guard case let .insufficientCoverage(_, _, minimum, shortfalls) = error else {
                Issue.record("wrong error \(error)")
                return
            }
            #expect(minimum == 3)
            #expect(shortfalls == [CoverageShortfall(requirement: "sleep duration", daysWithData: 2)])
            #expect(error.description.contains("sleep duration on 2 day(s)"))
        }
    }

    @Test func hrvOrRestingHeartRateEitherSatisfiesTheRecoveryRequirement() throws {
        let days = [DatedVitalityMetrics(date: date("2026-01-07"), metrics: VitalityRawMetrics(
            age: 30, sleepDurationHours: 7, steps: 5000, hrvMs: 40, hrvType: .rmssd))]
        let w = try VitalityWindowBuilder(length: 7, minimumDays: 1).build(from: days, age: 30)
        #expect(w.metrics.hrvMs == 40)
        #expect(w.metrics.restingHeartRate == nil)
        #expect(w.coverage(of: .restingHeartRate).daysWithData == 0)
    }

    @Test func hrvTieChoosesSDNN() throws {
        let base = date("2026-01-01")
        let days = [
            DatedVitalityMetrics(date: base, metrics: VitalityRawMetrics(age: 30, sleepDurationHours: 7, steps: 1, hrvMs: 40, hrvType: .rmssd)),
            DatedVitalityMetrics(date: base.adding(days: 1), metrics: VitalityRawMetrics(age: 30, hrvMs: 60, hrvType: .sdnn)),
        ]
        let w = try VitalityWindowBuilder(length: 7, minimumDays: 1).build(from: days, age: 30)
        #expect(w.metrics.hrvMs == 60)
        #expect(w.metrics.hrvType == .sdnn)
    }

    @Test func rejectsBadRequests() {
        let one = [DatedVitalityMetrics(date: date("2026-01-01"), metrics: VitalityRawMetrics(age: 30, steps: 1))]
        #expect(throws: VitalityWindowError.lengthOutOfRange(6)) { try VitalityWindowBuilder(length: 6).build(from: one, age: 30) }
        #expect(throws: VitalityWindowError.lengthOutOfRange(31)) { try VitalityWindowBuilder(length: 31).build(from: one, age: 30) }
        #expect(throws: VitalityWindowError.minimumDaysOutOfRange(minimumDays: 0, length: 7)) {
            try VitalityWindowBuilder(length: 7, minimumDays: 0).build(from: one, age: 30)
        }
        #expect(throws: VitalityWindowError.noData) {
            try VitalityWindowBuilder().build(from: [DatedVitalityMetrics(date: date("2026-01-01"), metrics: VitalityRawMetrics(age: 30))], age: 30)
        }
        #expect(throws: VitalityWindowError.duplicateDate(date("2026-01-01"))) {
            try VitalityWindowBuilder().build(from: one + one, age: 30)
        }
    }
}
