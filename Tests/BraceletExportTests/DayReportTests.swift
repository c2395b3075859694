import BraceletSummaries
@testable import BraceletExport
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

/// The report is worth reading: text at WCAG AA contrast (computed from the page's own stylesheet),
/// a legend for every colour a chart draws, round ticks and a unit on every value axis, the week by
/// default, sleep with its dates, and a day that is not whole marked as such.
@Suite struct ReadableReportTests {
    func page(_ dataset: ExportDataset? = nil, date: String = "2026-03-08") throws -> String {
        try DayReport(dataset: dataset ?? Fixture.dataset(), date: date).html()
    }

    /// The page's stylesheet.
    func css(_ page: String) -> String {
        guard let start = page.range(of: "<style>"), let end = page.range(of: "</style>") else { return "" }
        return String(page[start.upperBound..<end.lowerBound])
    }

    /// The `#rrggbb` colour of `property` in the rule whose selector is exactly `selector`.
    func colour(_ css: String, _ selector: String, _ property: String) throws -> String {
        for rule in css.split(whereSeparator: { $0 == "}" }) {
            let parts = rule.split(separator: "{", maxSplits: 1)
            guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespacesAndNewlines) == selector else { continue }
            for declaration in parts[1].split(separator: ";") {
                let pair = declaration.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                if pair.count == 2, pair[0] == property, pair[1].hasPrefix("#"), pair[1].count == 7 { return pair[1] }
            }
        }
        throw CocoaError(.coderValueNotFound, userInfo: [NSDebugDescriptionErrorKey: "no \(property) in \(selector)"])
    }

    /// WCAG 2.x relative luminance of `#rrggbb`.
    func luminance(_ hex: String) -> Double {
        let value = Int(hex.dropFirst(), radix: 16) ?? 0
        func channel(_ shift: Int) -> Double {
            let c = Double((value >> shift) & 0xFF) / 255
            return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
        }
        return 0.2126 * channel(16) + 0.7152 * channel(8) + 0.0722 * channel(0)
    }

    /// WCAG contrast ratio of two colours (1 to 21).
    func contrast(_ a: String, _ b: String) -> Double {
        let (l1, l2) = (luminance(a), luminance(b))
        return (max(l1, l2) + 0.05) / (min(l1, l2) + 0.05)
    }

    @Test func theContrastFormulaGivesWCAGsKnownRatios() {
        #expect(abs(contrast("#000000", "#ffffff") - 21) < 0.001)
        #expect(abs(contrast("#767676", "#ffffff") - 4.54) < 0.01)  // the lightest grey that passes AA on white
    }

    @Test func everyTextMeetsWCAGAAOnWhatItSitsOn() throws {
        let style = css(try page())
        let white = try colour(style, "body", "background")
        var pairs: [(String, String, String)] = [
            ("body text", try colour(style, "body", "color"), white),
            ("chart text", try colour(style, "svg text", "fill"), white),
            ("axis unit", try colour(style, "svg text.unit", "fill"), white),
            ("notes", try colour(style, ".meta", "color"), white),
            ("legend", try colour(style, ".legend", "color"), white),
            ("the report day in the week", try colour(style, "body", "color"), try colour(style, ".week .today", "background")),
        ]
        // Zone names sit on their band, or on the not-worn span drawn over it.
        for band in ["z0", "z1", "z2", "z3", "z4", "z5", "gap"] {
            pairs.append(("zone name on .\(band)", try colour(style, "svg text.zone-label", "fill"), try colour(style, ".\(band)", "fill")))
        }
        for (what, text, background) in pairs {
            #expect(contrast(text, background) >= 4.5, "\(what): \(text) on \(background) is \(contrast(text, background)):1")
        }
    }

    @Test func everyColourAChartDrawsHasALegendEntry() throws {
        let html = try page()
        let swatches = Set(html.components(separatedBy: "<i class=\"sw ").dropFirst().compactMap { $0.split(separator: "\"").first.map(String.init) })
        var drawn = Set<String>()
        for (cssClass, _) in DayReport.areaColours where html.contains("class=\"zone \(cssClass)\"") || html.contains("class=\"\(cssClass)\"")
            || html.contains("class=\"stage-run \(cssClass)\"") {
            drawn.insert(cssClass)
        }
        for (cssClass, _, _) in DayReport.lineColours where html.contains("class=\"curve \(cssClass)\"") { drawn.insert("line " + cssClass) }
        #expect(drawn.contains("gap") && drawn.contains("z5") && drawn.contains("line hr") && drawn.contains("s3"))
        #expect(drawn.subtracting(swatches).isEmpty, "no legend for \(drawn.subtracting(swatches).sorted())")
        #expect(html.contains("no reading ≥ 10 min (not worn)"))
    }

    @Test func ticksAreRoundAndEveryValueAxisHasAUnit() throws {
        let axis = ValueAxisProbe.ticks(covering: 40, 177, intervals: 7)
        #expect(axis == [40, 60, 80, 100, 120, 140, 160, 180])
        #expect(ValueAxisProbe.ticks(covering: 0, 7512, intervals: 4) == [0, 2000, 4000, 6000, 8000])
        #expect(ValueAxisProbe.ticks(covering: 33.2, 35.6, intervals: 4) == [33, 34, 35, 36])
        #expect(ValueAxisProbe.ticks(covering: 0.05, 0.93, intervals: 4) == [0, 0.5, 1])
        #expect(ValueAxisProbe.ticks(covering: 0.05, 0.93, intervals: 5) == [0, 0.2, 0.4, 0.6, 0.8, 1])
        let html = try page()
        for chart in html.components(separatedBy: "<svg ").dropFirst() {
            let ticks = chart.components(separatedBy: "class=\"tick\"").dropFirst().compactMap { piece in
                piece.split(separator: ">", maxSplits: 1).last?.split(separator: "<").first.flatMap { Double($0) }
            }
            guard !ticks.isEmpty else { continue }
            let id = chart.split(separator: "\"").dropFirst().first ?? ""
            let steps = Set(zip(ticks, ticks.dropFirst()).map { ($1 - $0).rounded(toPlaces: 6) })
            #expect(steps.count == 1, "\(id): ticks \(ticks) are not evenly spaced")
            let step = steps.first ?? 0
            let mantissa = step / pow(10, log10(step).rounded(.down))
            #expect([1, 2, 5].contains(mantissa.rounded(toPlaces: 6)), "\(id): step \(step) is not 1, 2 or 5 x 10^n")
            #expect(chart.contains("class=\"unit\""), "\(id) has no unit")
        }
        for (id, unit) in [("heart-rate", "bpm"), ("breath", "breaths/min"), ("temperature", "°C"), ("steps", "steps/h")] {
            let chart = html.components(separatedBy: "<svg id=\"\(id)\"").dropFirst().first ?? ""
            let shown = chart.components(separatedBy: "class=\"unit\"").dropFirst().first?.split(separator: ">").dropFirst().first?.split(separator: "<").first
            #expect(shown.map(String.init) == unit, "\(id) lacks its unit \(unit)")
        }
    }

    @Test func sleepStartsCarryTheirDates() throws {
        // The night filed under 2026-03-08 began the evening before (22:00 EST) and ended at 07:00 EDT.
        #expect(try page().contains("Night <span class=\"meta\">2026-03-07 22:00 – 2026-03-08 07:00</span>"))
    }

    @Test func aDayThatIsNotWholeIsMarkedInTheHeaderAndTheWeek() throws {
        var dataset = try Fixture.dataset()
        var previous = dataset.days[0]
        previous.summary.date = "2026-03-07"
        previous.summary.coverage = DayCoverage(dayEnd: Fixture.dayStart, dayMinutes: 1440, recordedMinutes: 423, wornMinutes: 400, dayIsOver: true)
        dataset.days.insert(previous, at: 0)
        dataset.now = Fixture.dayEnd - 3600
        let html = try page(dataset)
        #expect(html.contains("<strong>ongoing day</strong> (not over yet; not scored)"))
        #expect(html.contains("<th>2026-03-07</th><td>7 h 3 min, partial</td>"))
        #expect(html.contains("<td>23 h, ongoing</td>"))
        dataset.now = Fixture.dayEnd + 3600
        let later = try page(dataset)
        #expect(!later.contains("ongoing day") && !later.contains(", ongoing</td>"))
        #expect(later.contains("<td>23 h</td>"))
    }
}

/// The ticks the report's value axis puts on a range.
enum ValueAxisProbe {
    static func ticks(covering low: Double, _ high: Double, intervals: Int) -> [Double] {
        ValueAxis(covering: low, high, top: 0, bottom: 100, intervals: intervals).ticks.map { $0.rounded(toPlaces: 9) }
    }
}

extension Double {
    func rounded(toPlaces places: Int) -> Double {
        let scale = pow(10, Double(places))
        return (self * scale).rounded() / scale
    }
}
