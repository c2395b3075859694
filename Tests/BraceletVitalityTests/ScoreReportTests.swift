import Foundation
import Testing
@testable import BraceletVitality

/// What `bracelet score --rook` prints.
@Suite struct ScoreReportTests {
    @Test func jsonCarriesMetricsCoverageAndScores() throws {
        let report = try ScoreReport.make(rook: try loadFixture("rook_sample_fitbit_rmssd"), age: 40,
                                          builder: VitalityWindowBuilder(), source: "rook:fitbit")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(report.json().utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["source", "age", "window", "metrics", "coverage", "scores", "notes", "warnings", "skippedDays", "missingByDay"])
        let metrics = try #require(object["metrics"] as? [String: Any])
        #expect(metrics["hrvType"] as? String == "rmssd")
        #expect(metrics["hrvMs"] as? Double == 38)           // (35 + 38 + 40 + 36 + 41 + 39 + 37) / 7
        #expect(metrics["sleepEfficiencyPercent"] as? Double == 90)
        #expect(metrics["activeCalories"] as? Double == 350)
        let window = try #require(object["window"] as? [String: Any])
        #expect(window["start"] as? String == "2026-01-01")
        #expect(window["days"] as? Int == 7)
        let coverage = try #require(object["coverage"] as? [[String: Any]])
        #expect(coverage.count == 10)
        let breathing = try #require(coverage.first { $0["field"] as? String == "breathingRate" })
        #expect(breathing["daysWithData"] as? Int == 7)
    }

    @Test func nilMetricsAreWrittenAsNull() throws {
        let report = try ScoreReport.make(rook: try loadFixture("rook_sample_apple_minimal"), age: 40,
                                          builder: VitalityWindowBuilder(), source: "rook:apple")
        let json = report.json()
        #expect(json.contains("\"hrvMs\" : null"))
        #expect(json.contains("\"total\" : 89.8"))   // (100 + 72.46 + 97) / 3, one decimal
        #expect(!json.contains("\"hrvMs\" : 0"))
    }

    @Test func tableShowsEveryMetricPillarsAndMissingDays() throws {
        let report = try ScoreReport.make(rook: try loadFixture("rook_sample_multi_day_30"), age: 50,
                                          builder: VitalityWindowBuilder(length: 7), source: "rook:multi")
        let table = report.table()
        for field in VitalityField.allCases { #expect(table.contains(field.label)) }
        #expect(table.contains("Window 2025-12-31 ... 2026-01-06: 7 days, 7 with data"))
        #expect(table.contains("6/7 86%"))                       // sleep duration coverage
        #expect(table.contains("2026-01-05: activeCalories"))
        #expect(table.contains("Total"))
    }

    @Test func errorsSayWhatToDo() {
        #expect(throws: ScoreReportError.scoring(.unsupportedAge(10))) {
            try ScoreReport.make(days: [], age: 10, builder: VitalityWindowBuilder(), source: "x")
        }
        #expect(throws: ScoreReportError.window(.noData)) {
            try ScoreReport.make(days: [], age: 40, builder: VitalityWindowBuilder(), source: "x")
        }
        #expect(ScoreReportError.window(.lengthOutOfRange(3)).description.contains("Choose --days between 7 and 30"))
    }
}
