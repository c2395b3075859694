import ArgumentParser
import BraceletSummaries
import Foundation
import Testing
@testable import BraceletCLI

/// Every `--tz` goes through the one parser, and fixed-value options list their choices.
@Suite struct TimeZoneOptionTests {
    @Test func everyCommandReadsTheSameZoneNames() throws {
        let capture = capturesFolder + "/v1-day.btsnoop"
        let ingest = try IngestCommand.parse([capture, "--db", "x.db", "--tz=-0530"])
        #expect(ingest.person.tz?.secondsFromGMT() == -19_800)
        let summarize = try SummarizeCommand.parse([capture, "--tz", "Europe/Amsterdam"])
        #expect(summarize.person.tz?.identifier == "Europe/Amsterdam")
        let export = try ExportCommand.parse(["--db", "x.db", "--format", "omh", "--tz", "+02:00"])
        #expect(export.tz?.secondsFromGMT() == 7_200)
        let report = try ReportCommand.parse(["--db", "x.db", "--day", "2026-06-15", "--tz", "UTC"])
        #expect(report.tz?.secondsFromGMT() == 0)
    }

    @Test func anUnknownZoneIsRefusedWhileParsingWithTheSameMessage() {
        for parse in [{ _ = try ExportCommand.parse(["--db", "x.db", "--format", "omh", "--tz", "Mars/Base"]) },
                      { _ = try ReportCommand.parse(["--db", "x.db", "--day", "2026-06-15", "--tz", "Mars/Base"]) },
                      { _ = try SummarizeCommand.parse(["--tz", "Mars/Base"]) }] as [() throws -> Void] {
            do {
                try parse()
                Issue.record("--tz Mars/Base was accepted")
            } catch {
                #expect(Bracelet.message(for: error).contains("time zone 'Mars/Base' is unknown"))
            }
        }
    }

    @Test func theMaxHeartRateFormulaIsAnEnumWhoseErrorNamesTheChoices() throws {
        let capture = capturesFolder + "/v1-day.btsnoop"
        #expect(try SummarizeCommand.parse([capture, "--hrmax-formula", "220"]).person.hrMaxFormula == .classic)
        // Left out, the formula is the participant record's, else Tanaka's (208) when the days are computed.
        #expect(try SummarizeCommand.parse([capture]).person.hrMaxFormula == nil)
        #expect(try SummarizeCommand.parse([capture, "--tz", "UTC"]).person.configuration(recordedOffsetSeconds: nil).hrMaxFormula == .tanaka)
        do {
            _ = try SummarizeCommand.parse([capture, "--hrmax-formula", "210"])
            Issue.record("--hrmax-formula 210 was accepted")
        } catch {
            #expect(Bracelet.message(for: error).contains("'208' and '220'"))
        }
    }
}
