import BraceletDecoder
import BraceletSummaries
import Foundation
import Testing
@testable import BraceletVitality

/// A stored day without an age (the age is given when scoring) is read with the age given, and its
/// coverage comes back; without any age the row names what is missing instead of inventing one.
@Suite struct StoredVitalityRowTests {
    let coverage = DayCoverage(dayEnd: 1_767_657_600, dayMinutes: 1440, recordedMinutes: 1300, wornMinutes: 1250, dayIsOver: true)

    func storedRow() throws -> (json: Data, metrics: VitalityRawMetrics, missing: [MissingField]) {
        let day = BraceletDay(date: LocalDate(iso: "2026-01-05")!, totalSleepSeconds: 27000, steps: 8000, nightlyRMSSDMs: 41)
        let (metrics, missing) = vitalityMetrics(for: day, age: 44)
        return (try StoredVitalityMetrics.encode(metrics, age: nil, coverage: coverage, missing: missing), metrics, missing)
    }

    @Test func rowWithoutAgeTakesTheGivenAgeAndKeepsItsCoverage() throws {
        let (json, metrics, _) = try storedRow()
        #expect(String(decoding: json, as: UTF8.self).contains("\"age\":null"))
        let back = try StoredVitalityMetrics.decode(localDate: "2026-01-05", json: json, age: 52)
        #expect(back.metrics.age == 52)
        #expect(back.metrics.steps == metrics.steps)
        #expect(back.metrics.hrvMs == metrics.hrvMs)
        #expect(back.metrics.activeCalories == nil)
        #expect(back.coverage == coverage)
    }

    /// `score --db` lists the days with missing inputs, with the mapper's reasons, as a score from
    /// the delivered summaries does; a row stored before the reasons were kept lists none.
    @Test func rowKeepsWhyEachEmptyMetricIsEmpty() throws {
        let (json, _, missing) = try storedRow()
        #expect(missing.contains { $0.field == .activeCalories })
        let back = try StoredVitalityMetrics.decode(localDate: "2026-01-05", json: json, age: 52)
        #expect(back.missing == missing)
        let older = try StoredVitalityMetrics.decode(localDate: "2026-01-05", json: Data(#"{"age":40,"steps":5}"#.utf8))
        #expect(older.missing.isEmpty)
        #expect(older.metrics.steps == 5)
    }

    @Test func rowWithoutAnyAgeIsRefusedWithTheDay() throws {
        let (json, _, _) = try storedRow()
        #expect(throws: StoredVitalityMetricsError.badJSON(localDate: "2026-01-05", detail: "the row has no age and none was given")) {
            try StoredVitalityMetrics.decode(localDate: "2026-01-05", json: json)
        }
        #expect(throws: StoredVitalityMetricsError.badJSON(localDate: "2026-01-05", detail: "the row is not a JSON object")) {
            try StoredVitalityMetrics.decode(localDate: "2026-01-05", json: Data("[1,2]".utf8), age: 40)
        }
    }
}
