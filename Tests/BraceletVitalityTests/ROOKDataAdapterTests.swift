import Testing
@testable import BraceletVitality

/// Test list 9.1 of the ROOK implementation requirements, with values computed by hand from the inputs.
@Suite struct ROOKDataAdapterTests {
    @Test func fullCoverageMapsEveryMetric() throws {
        // Day 1 of the Whoop sample: 27000 s sleep, 30000 s in bed, 1800 s awake, 5400 s REM,
        // 4050 s deep, SDNN 62.5 and RMSSD 48 both present, sleep RHR 54 and daily 58.
        let day = try loadFixture("rook_sample_whoop_full").days[0]
        let (m, missing) = ROOKDataAdapter.map(day: day, age: 35)
        #expect(m.age == 35)
        #expect(m.sleepDurationHours == 7.5)                      // 27000 / 3600
        #expect(close(m.restorativeSleepPercent, 35))             // (4050 + 5400) / 27000 x 100
        #expect(close(m.sleepEfficiencyPercent, 90))              // 27000 / 30000 x 100, not the source's 91
        #expect(close(m.awakePercent, 6))                         // 1800 / 30000 x 100
        #expect(m.movementMinutes == 45)                          // active minutes, not the 50 min of events
        #expect(m.steps == 9000)
        #expect(m.activeCalories == 420.5)
        #expect(m.hrvMs == 62.5)                                  // SDNN preferred over RMSSD 48
        #expect(m.hrvType == .sdnn)
        #expect(m.restingHeartRate == 54)                         // sleep RHR preferred over daily 58
        #expect(m.breathingRate == 14)
        #expect(missing.isEmpty)
        #expect(ROOKDataAdapter.mapToVitalityRawMetrics(
            age: 35, sleepSummary: day.sleepSummary, physicalSummary: day.physicalSummary,
            activityEvents: day.activityEvents) == m)
    }

    @Test func minimalCoverageGivesPartialMetricsAndLogsTheRest() throws {
        // Apple sample day 1: sleep 25200 s, 6000 steps, daily RHR 62, nothing else.
        let day = try loadFixture("rook_sample_apple_minimal").days[0]
        let (m, missing) = ROOKDataAdapter.map(day: day, age: 40)
        #expect(m.sleepDurationHours == 7)
        #expect(m.steps == 6000)
        #expect(m.restingHeartRate == 62)
        #expect(m.restorativeSleepPercent == nil)
        #expect(m.sleepEfficiencyPercent == nil)
        #expect(m.awakePercent == nil)
        #expect(m.movementMinutes == nil)
        #expect(m.activeCalories == nil)
        #expect(m.hrvMs == nil)
        #expect(m.hrvType == nil)
        #expect(m.breathingRate == nil)
        #expect(Set(missing.map(\.field)) == [.restorativeSleepPercent, .sleepEfficiencyPercent, .awakePercent,
                                              .movementMinutes, .activeCalories, .hrvMs, .breathingRate])
        let efficiency = try #require(missing.first { $0.field == .sleepEfficiencyPercent })
        #expect(efficiency.reason.contains("sleep_summary.time_in_bed_seconds_int is missing"))
        let movement = try #require(missing.first { $0.field == .movementMinutes })
        #expect(movement.reason.contains("physical_summary.active_minutes_total_int is missing"))
        #expect(movement.reason.contains("activity_events"))
    }

    @Test func hrvFallsBackToRMSSDAndTracksTheType() throws {
        let fitbit = try loadFixture("rook_sample_fitbit_rmssd").days[0]
        let (m, _) = ROOKDataAdapter.map(day: fitbit, age: 40)
        #expect(m.hrvMs == 35)            // RMSSD as given, not converted to an SDNN estimate
        #expect(m.hrvType == .rmssd)

        // Nightly values both absent: the physical summary's daily SDNN comes next, then RMSSD.
        let daily = ROOKDataAdapter.mapToVitalityRawMetrics(
            age: 40, sleepSummary: ROOKSleepSummary(sleepDurationSecondsInt: 27000),
            physicalSummary: ROOKPhysicalSummary(hrvSdnnAvgMs: 51, hrvRmssdAvgMs: 33), activityEvents: nil)
        #expect(daily.hrvMs == 51)
        #expect(daily.hrvType == .sdnn)
        let dailyRMSSD = ROOKDataAdapter.mapToVitalityRawMetrics(
            age: 40, sleepSummary: nil, physicalSummary: ROOKPhysicalSummary(hrvRmssdAvgMs: 33), activityEvents: nil)
        #expect(dailyRMSSD.hrvMs == 33)
        #expect(dailyRMSSD.hrvType == .rmssd)
        // Nightly RMSSD beats daily SDNN: nightly before daily.
        let nightly = ROOKDataAdapter.mapToVitalityRawMetrics(
            age: 40, sleepSummary: ROOKSleepSummary(hrvRmssdMsDouble: 44),
            physicalSummary: ROOKPhysicalSummary(hrvSdnnAvgMs: 51), activityEvents: nil)
        #expect(nightly.hrvMs == 44)
        #expect(nightly.hrvType == .rmssd)
    }

    @Test func restingHeartRateFallsBackToThePhysicalSummary() {
        let (m, _) = ROOKDataAdapter.map(
            age: 40, sleepSummary: ROOKSleepSummary(sleepDurationSecondsInt: 27000),
            physicalSummary: ROOKPhysicalSummary(hrRestingBpmInt: 61), activityEvents: nil)
        #expect(m.restingHeartRate == 61)

        let (none, missing) = ROOKDataAdapter.map(
            age: 40, sleepSummary: ROOKSleepSummary(), physicalSummary: ROOKPhysicalSummary(), activityEvents: nil)
        #expect(none.restingHeartRate == nil)
        let reason = missing.first { $0.field == .restingHeartRate }?.reason ?? ""
        #expect(reason.contains("sleep_summary.hr_resting_bpm_int is missing"))
        #expect(reason.contains("physical_summary.hr_resting_bpm_int is missing"))
    }

    @Test func movementMinutesFallBackToTheSumOfActivityEvents() {
        // 1500 s + 900 s = 2400 s = 40 min; the event without a duration is skipped.
        let events = [ROOKActivityEvent(type: "moderate", durationSecondsInt: 1500),
                      ROOKActivityEvent(type: "vigorous", durationSecondsInt: 900),
                      ROOKActivityEvent(type: "moderate", durationSecondsInt: nil)]
        let fallback = ROOKDataAdapter.mapToVitalityRawMetrics(
            age: 40, sleepSummary: nil, physicalSummary: ROOKPhysicalSummary(stepsInt: 5000), activityEvents: events)
        #expect(fallback.movementMinutes == 40)

        // Minute data wins over events, but a 0 is ROOK's "not measured": the events are used.
        let placeholderZero = ROOKDataAdapter.mapToVitalityRawMetrics(
            age: 40, sleepSummary: nil, physicalSummary: ROOKPhysicalSummary(activeMinutesTotalInt: 0), activityEvents: events)
        #expect(placeholderZero.movementMinutes == 40)
        let measured = ROOKDataAdapter.mapToVitalityRawMetrics(
            age: 40, sleepSummary: nil, physicalSummary: ROOKPhysicalSummary(activeMinutesTotalInt: 12), activityEvents: events)
        #expect(measured.movementMinutes == 12)

        // Neither: nil, not 0.
        let (none, missing) = ROOKDataAdapter.map(age: 40, sleepSummary: nil, physicalSummary: nil, activityEvents: [])
        #expect(none.movementMinutes == nil)
        #expect(missing.contains { $0.field == .movementMinutes && $0.reason.contains("has no entries") })
    }

    @Test func timeInBedZeroLeavesEfficiencyAndAwakeNil() {
        let sleep = ROOKSleepSummary(sleepDurationSecondsInt: 27000, timeInBedSecondsInt: 0, timeAwakeDuringSleepSecondsInt: 600,
                                     remSleepDurationSecondsInt: 5400, deepSleepDurationSecondsInt: 4050)
        let (m, missing) = ROOKDataAdapter.map(age: 40, sleepSummary: sleep, physicalSummary: nil, activityEvents: nil)
        #expect(m.sleepEfficiencyPercent == nil)
        #expect(m.awakePercent == nil)
        #expect(m.sleepDurationHours == 7.5)         // unaffected
        #expect(close(m.restorativeSleepPercent, 35)) // unaffected
        #expect(missing.contains { $0.field == .sleepEfficiencyPercent && $0.reason.contains("time_in_bed_seconds_int is 0, which this source writes for \"not measured\"") })
        #expect(missing.contains { $0.field == .awakePercent && $0.reason.contains("time_in_bed_seconds_int is 0") })
    }

    @Test func activeCaloriesAreNotSubstitutedByTotal() {
        let (m, missing) = ROOKDataAdapter.map(
            age: 40, sleepSummary: nil,
            physicalSummary: ROOKPhysicalSummary(stepsInt: 8000, totalCaloriesKcalDouble: 2400), activityEvents: nil)
        #expect(m.activeCalories == nil)
        #expect(m.steps == 8000)
        let reason = missing.first { $0.field == .activeCalories }?.reason ?? ""
        #expect(reason.contains("active_calories_kcal_double is missing"))
        #expect(reason.contains("total_calories_kcal_double (2400 kcal) is present"))
    }

    @Test func placeholderZerosAndInconsistentRatiosAreNotScoredAsMeasurements() {
        // RHR 0 and breathing 0 are "no reading" placeholders; deep + REM above total is inconsistent.
        let sleep = ROOKSleepSummary(sleepDurationSecondsInt: 20000, timeInBedSecondsInt: 18000,
                                     remSleepDurationSecondsInt: 15000, deepSleepDurationSecondsInt: 9000,
                                     hrvSdnnMsDouble: 0, hrRestingBpmInt: 0, breathsAvgPerMinInt: 0)
        let (m, missing) = ROOKDataAdapter.map(age: 40, sleepSummary: sleep, physicalSummary: ROOKPhysicalSummary(stepsInt: -5),
                                               activityEvents: nil)
        #expect(m.restingHeartRate == nil)
        #expect(m.breathingRate == nil)
        #expect(m.hrvMs == nil)
        #expect(m.steps == nil)
        #expect(m.restorativeSleepPercent == nil)     // (15000 + 9000) / 20000 = 120 %
        #expect(m.sleepEfficiencyPercent == nil)      // 20000 / 18000 = 111 %
        #expect(m.sleepDurationHours == 20000.0 / 3600)
        #expect(missing.contains { $0.field == .restingHeartRate && $0.reason.contains("hr_resting_bpm_int is 0, which this source writes") })
        #expect(missing.contains { $0.field == .restorativeSleepPercent && $0.reason.contains("inconsistent") })
        #expect(missing.contains { $0.field == .steps && $0.reason.contains("-5") })
    }

    @Test func emptyDayIsAllNilWithTenReasons() {
        let (m, missing) = ROOKDataAdapter.map(age: 50, sleepSummary: nil, physicalSummary: nil, activityEvents: nil)
        #expect(m == VitalityRawMetrics(age: 50))
        #expect(missing.count == VitalityField.allCases.count)
        #expect(missing.first { $0.field == .sleepDurationHours }?.reason == "sleep_summary (absent).sleep_duration_seconds_int is missing")
    }
}
