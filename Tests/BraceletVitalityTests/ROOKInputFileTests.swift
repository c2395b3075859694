import Foundation
import BraceletDecoder
import Testing
@testable import BraceletVitality

/// Decoding the `--rook` input file: fixtures load, wrong input gives located errors, never a crash.
@Suite struct ROOKInputFileTests {
    func decode(_ json: String) -> Result<ROOKInputFile, ROOKInputError> {
        do { return .success(try ROOKInputFile.decode(Data(json.utf8))) } catch { return .failure(error) }
    }

    @Test func samplesLoadWithTheExpectedDays() throws {
        #expect(try loadFixture("rook_sample_whoop_full").days.count == 7)
        #expect(try loadFixture("rook_sample_apple_minimal").days.count == 7)
        #expect(try loadFixture("rook_sample_fitbit_rmssd").days.count == 7)
        let multi = try loadFixture("rook_sample_multi_day_30")
        #expect(multi.days.count == 27) // 30 calendar days, 3 absent
        #expect(multi.days.first?.date == date("2025-12-08"))
        #expect(multi.days.last?.date == date("2026-01-06"))
        // Snake-case keys land in the fields of the ROOK implementation requirements.
        let whoop = try loadFixture("rook_sample_whoop_full").days[0]
        #expect(whoop.sleepSummary?.timeAwakeDuringSleepSecondsInt == 1800)
        #expect(whoop.physicalSummary?.totalCaloriesKcalDouble == 2450)
        #expect(whoop.activityEvents?.first?.durationSecondsInt == 1800)
    }

    @Test func stringWhereANumberBelongsNamesDayAndField() {
        let result = decode(#"{"days":[{"date":"2026-01-01"},{"date":"2026-01-02"},{"date":"2026-01-03"},{"date":"2026-01-04","sleep_summary":{"hr_resting_bpm_int":"55"}}]}"#)
        guard case let .failure(.wrongType(path, expected, _)) = result else {
            Issue.record("expected a wrong-type error, got \(result)")
            return
        }
        #expect(path == "days[3].sleep_summary.hr_resting_bpm_int")
        #expect(expected == "number")
        if case let .failure(error) = result {
            #expect(error.description.hasPrefix("expected number at days[3].sleep_summary.hr_resting_bpm_int"))
        }
    }

    @Test func fractionInAWholeNumberFieldIsLocated() {
        let result = decode(#"{"days":[{"date":"2026-01-01","physical_summary":{"steps_int":8000.5}}]}"#)
        guard case let .failure(.invalidValue(path, detail)) = result else {
            Issue.record("expected an invalid-value error, got \(result)")
            return
        }
        #expect(path == "days[0].physical_summary.steps_int")
        #expect(detail == "expected a whole number, found 8000.5")
    }

    @Test func otherBadShapesAreNamed() {
        #expect(decode(#"{"days":[{"date":"2026-02-30"}]}"#) == .failure(.invalidValue(
            path: "days[0].date", detail: "expected a date written YYYY-MM-DD, found \"2026-02-30\"")))
        #expect(decode(#"{"days":[{"date":"2026-01-01","activity_events":[{"duration_seconds_int":60}]}]}"#)
                == .failure(.missingKey(path: "days[0].activity_events[0].type")))
        #expect(decode(#"{}"#) == .failure(.missingKey(path: "days")))
        // A misspelled required key is named as unknown, with the spelling meant, not only as missing.
        #expect(decode(#"{"dayz":[]}"#) == .failure(.unknownKeys([ROOKUnknownKey(path: "the top level", key: "dayz", suggestion: "days")], total: 1)))
        #expect(decode(#"{"days":[{"date":"2026-01-01"},{"date":"2026-01-01"}]}"#)
                == .failure(.duplicateDate(date: date("2026-01-01"), firstIndex: 0, secondIndex: 1)))
        if case let .failure(.wrongType(path, expected, _)) = decode("[1, 2]") {
            #expect(path == "the top level")
            #expect(expected == "object")
        } else {
            Issue.record("a top-level array must be a wrong-type error")
        }
    }

    @Test func syntaxErrorsGiveLineAndColumn() {
        let result = decode("{\n  \"days\": [\n    {\"date\": tru}\n  ]\n}")
        guard case let .failure(.notJSON(detail)) = result else {
            Issue.record("expected not-JSON, got \(result)")
            return
        }
        #expect(detail.contains("line 3"))
    }

    @Test func nullsMeanAbsent() throws {
        let file = try ROOKInputFile.decode(Data(#"{"days":[{"date":"2026-01-01","sleep_summary":{"hr_resting_bpm_int":null},"physical_summary":null}]}"#.utf8))
        #expect(file.days[0].sleepSummary == ROOKSleepSummary())
        #expect(file.days[0].physicalSummary == nil)
    }

    @Test func everyTruncationOfASampleFailsCleanly() throws {
        // Bad input must never crash: every prefix of a real file either decodes or throws.
        let url = try #require(Bundle.module.url(forResource: "rook_sample_fitbit_rmssd", withExtension: "json", subdirectory: "Fixtures"))
        let data = try Data(contentsOf: url)
        var failures = 0
        for length in stride(from: 0, to: data.count, by: 7) {
            if case .failure = Result(catching: { () throws(ROOKInputError) in try ROOKInputFile.decode(data.prefix(length)) }) {
                failures += 1
            }
        }
        #expect(failures == (data.count + 6) / 7) // no strict prefix of the file is a complete document
    }
}

extension Result where Failure == ROOKInputError {
    init(catching body: () throws(ROOKInputError) -> Success) {
        do { self = .success(try body()) } catch { self = .failure(error) }
    }
}

/// A day's `coverage` (written by `bracelet export --format rook`) decides completeness as for `--db`.
@Suite struct ROOKCoverageTests {
    static func file(_ coverage: String) -> String {
        #"{"days": [{"date": "2026-01-05", "sleep_summary": {"sleep_duration_seconds_int": 27000, "hr_resting_bpm_int": 55}, "physical_summary": {"steps_int": 9000}, "coverage": \#(coverage)}]}"#
    }

    @Test func aPartialDayIsLeftOutAndADayExportedWhileRunningCountsOnceOver() throws {
        // 2026-01-05 in UTC ends at 1767657600.
        let partial = try ROOKInputFile.decode(Data(Self.file(#"{"day_end": 1767657600, "day_minutes": 1440, "recorded_minutes": 660}"#).utf8))
        let builder = VitalityWindowBuilder(minimumDays: 1, now: 1_767_700_000)
        #expect(throws: ScoreReportError.self) { try ScoreReport.make(rook: partial, age: 40, builder: builder, source: "rook") }
        let all = try ScoreReport.make(rook: partial, age: 40, builder: VitalityWindowBuilder(minimumDays: 1, includeIncompleteDays: true,
                                                                                           now: 1_767_700_000), source: "rook")
        #expect(all.window.metrics.steps == 9_000)
        // Exported at 23:50 with every minute so far recorded: not over then, complete once over.
        let running = try ROOKInputFile.decode(Data(Self.file(
            #"{"day_end": 1767657600, "day_minutes": 1440, "recorded_minutes": 1430, "is_complete": false}"#).utf8))
        let before = VitalityWindowBuilder(end: LocalDate(iso: "2026-01-05"), minimumDays: 1, includeIncompleteDays: false, now: 1_767_657_000)
        let skipped = try? ScoreReport.make(rook: running, age: 40, builder: before, source: "rook")
        #expect(skipped == nil)
        let after = VitalityWindowBuilder(minimumDays: 1, now: 1_767_657_600)
        #expect(try ScoreReport.make(rook: running, age: 40, builder: after, source: "rook").window.daysWithAnyData == 1)
    }

    @Test func aDamagedCoverageIsNamed() {
        func decode(_ coverage: String) -> Result<ROOKInputFile, ROOKInputError> {
            do { return .success(try ROOKInputFile.decode(Data(ROOKCoverageTests.file(coverage).utf8))) } catch { return .failure(error) }
        }
        #expect(decode(#"{"day_minutes": 1440, "recorded_minutes": 600}"#) == .failure(.missingKey(path: "days[0].coverage.day_end")))
        guard case let .failure(.invalidValue(path, detail)) = decode(#"{"day_end": 1767657600, "day_minutes": 1440, "recorded_minutes": 1441}"#) else {
            Issue.record("more minutes recorded than the day has must be refused")
            return
        }
        #expect(path == "days[0].coverage.recorded_minutes")
        #expect(detail == "1441 is not between 0 and 1440")
        // The camelCase spelling of our keys is read too.
        let camel = decode(#"{"dayEnd": 1767657600, "dayMinutes": 1440, "recordedMinutes": 1440}"#)
        #expect((try? camel.get())?.days.first?.coverage?.recordedMinutes == 1440)
    }
}
