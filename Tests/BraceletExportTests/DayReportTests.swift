import BraceletExport
import Foundation
import Testing

@Suite struct DayReportTests {
    func html() throws -> String { try DayReport(dataset: Fixture.dataset(), date: "2026-03-08").html() }

    func count(_ needle: String, in text: String) -> Int { text.components(separatedBy: needle).count - 1 }

    @Test func theDaylightSavingDayIsShownWithBothOffsetsAnd23Hours() throws {
        let page = try html()
        #expect(page.contains("times in America/New_York (UTC-05:00) to UTC-04:00"))
        #expect(page.contains("day of 23 h"))
        #expect(page.contains("Steps per hour (23 hours)"))
    }

    @Test func oneSegmentPerStageRunAndOnePathPerCurve() throws {
        let page = try html()
        #expect(count("class=\"stage-run ", in: page) == 4)
        #expect(count("class=\"transition\"", in: page) == 2)  // awake→light, light→deep; the undefined gap breaks deep→REM
        #expect(count("class=\"curve hr\"", in: page) == 1)
        #expect(count("class=\"curve skin\"", in: page) == 1)
        #expect(count("class=\"curve core\"", in: page) == 0)  // no core slots: no curve, never a line at 0
        #expect(count("class=\"step-hour\"", in: page) == 1)
    }

    @Test func thePageLoadsNothingAndEveryChartHasATitle() throws {
        let page = try html()
        for forbidden in ["<script", "src=", "href=", "url(", "http://", "https://"] { #expect(!page.contains(forbidden)) }
        #expect(count("<svg ", in: page) == count("<title id=", in: page))
    }

    @Test func aDayWithoutSummaryIsAClearError() throws {
        #expect(throws: ExportError.self) { try DayReport(dataset: Fixture.dataset(), date: "2026-03-09").html() }
    }
}
