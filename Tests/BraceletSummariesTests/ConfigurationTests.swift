import Foundation
import Testing
@testable import BraceletSummaries

@Suite struct ConfigurationTests {
    static func list(_ t: HeartRateZoneThresholds) -> [Int] { [t.t50, t.t60, t.t70, t.t80, t.t90] }

    @Test func defaultsMatchTheBrief() throws {
        let c = try SummaryConfiguration()
        #expect(c.summarySlotSeconds == 60)
        #expect(c.qualityThreshold == 2)
        #expect(c.stepGoal == 10_000)
        #expect(c.hrMaxFormula == .tanaka)
    }

    @Test func tanakaIsTheDefaultFormula() throws {
        // age 30: 208 - 21 = 187 -> T50 93.5->94, T60 112.2->112, T70 130.9->131, T80 149.6->150, T90 168.3->168
        let t = try SummaryConfiguration(age: 30).zoneThresholds
        #expect(Self.list(t) == [94, 112, 131, 150, 168])
    }

    @Test func classicFormulaIs220MinusAge() throws {
        // 220 - 30 = 190 -> 95, 114, 133, 152, 171
        let t = try SummaryConfiguration(age: 30, hrMaxFormula: .classic).zoneThresholds
        #expect(Self.list(t) == [95, 114, 133, 152, 171])
    }

    @Test func givenMaximumWinsAndHalvesRoundUp() throws {
        // 185: 92.5->93, 111, 129.5->130, 148, 166.5->167
        let t = try SummaryConfiguration(age: 30, hrMax: 185).zoneThresholds
        #expect(Self.list(t) == [93, 111, 130, 148, 167])
    }

    @Test func zoneLowerBoundsAreInclusive() throws {
        let t = try utcConfiguration().zoneThresholds // 90 108 126 144 162
        #expect(t.zone(bpm: 89) == .rest)
        #expect(t.zone(bpm: 90) == .warmUp)
        #expect(t.zone(bpm: 107) == .warmUp)
        #expect(t.zone(bpm: 108) == .fatBurn)
        #expect(t.zone(bpm: 125) == .fatBurn)
        #expect(t.zone(bpm: 126) == .endurance)
        #expect(t.zone(bpm: 143) == .endurance)
        #expect(t.zone(bpm: 144) == .performance)
        #expect(t.zone(bpm: 161) == .performance)
        #expect(t.zone(bpm: 162) == .max)
    }

    @Test func rejectsBadValuesWithAHint() {
        #expect(throws: SummaryConfigurationError.slotTooShort(30)) { try SummaryConfiguration(summarySlotSeconds: 30) }
        #expect(throws: SummaryConfigurationError.qualityOutOfRange(5)) { try SummaryConfiguration(qualityThreshold: 5) }
        #expect(throws: SummaryConfigurationError.ageOutOfRange(0)) { try SummaryConfiguration(age: 0) }
        #expect(SummaryConfigurationError.slotTooShort(30).description.contains("use 60 s or more"))
    }

    @Test func timeZonesByNameOrOffset() throws {
        #expect(try SummaryConfiguration.timeZone(named: "+05:30").secondsFromGMT() == 19_800)
        #expect(try SummaryConfiguration.timeZone(named: "-0800").secondsFromGMT() == -28_800)
        #expect(try SummaryConfiguration.timeZone(named: "+2").secondsFromGMT() == 7_200)
        #expect(try SummaryConfiguration.timeZone(named: "Europe/Amsterdam").identifier == "Europe/Amsterdam")
        #expect(throws: SummaryConfigurationError.unknownTimeZone("Mars/Base")) {
            try SummaryConfiguration.timeZone(named: "Mars/Base")
        }
    }

    /// A zone is shown, stored and delivered by the name it was given: `UTC` stays `UTC` (Foundation
    /// calls it GMT), and every name reads back as the same zone.
    @Test func aZoneKeepsTheNameItWasGiven() throws {
        #expect(SummaryConfiguration.name(of: try SummaryConfiguration.timeZone(named: "UTC")) == "UTC")
        #expect(SummaryConfiguration.name(of: try SummaryConfiguration.timeZone(named: "GMT")) == "UTC")
        for text in ["UTC", "Europe/Amsterdam", "America/New_York", "Asia/Kathmandu"] {
            let zone = try SummaryConfiguration.timeZone(named: text)
            #expect(SummaryConfiguration.name(of: zone) == text)
            #expect(try SummaryConfiguration.timeZone(named: SummaryConfiguration.name(of: zone)) == zone)
        }
        let offset = try SummaryConfiguration.timeZone(named: "+02:00")
        #expect(try SummaryConfiguration.timeZone(named: SummaryConfiguration.name(of: offset)).secondsFromGMT() == 7_200)
    }

    /// Letter case does not make another zone: `utc` is UTC, `europe/amsterdam` Amsterdam. A fixed
    /// offset is named `UTC-04:00` (Foundation says `GMT-0400`), which reads back as the same zone,
    /// as the older `GMT-0400` still does.
    @Test func lowerCaseNamesAndFixedOffsetsAsUTC() throws {
        for text in ["utc", "Utc", "gmt", " UTC "] {
            #expect(SummaryConfiguration.name(of: try SummaryConfiguration.timeZone(named: text)) == "UTC", "\(text)")
        }
        #expect(try SummaryConfiguration.timeZone(named: "europe/amsterdam").identifier == "Europe/Amsterdam")
        #expect(try SummaryConfiguration.timeZone(named: "utc+05:30").secondsFromGMT() == 19_800)
        for (text, name, seconds) in [("-04:00", "UTC-04:00", -14_400), ("+0530", "UTC+05:30", 19_800), ("+14", "UTC+14:00", 50_400),
                                      ("GMT-0400", "UTC-04:00", -14_400), ("UTC-09:30", "UTC-09:30", -34_200)] {
            let zone = try SummaryConfiguration.timeZone(named: text)
            #expect(SummaryConfiguration.name(of: zone) == name, "\(text)")
            #expect(try SummaryConfiguration.timeZone(named: name) == zone && zone.secondsFromGMT() == seconds, "\(text)")
        }
        #expect(throws: SummaryConfigurationError.unknownTimeZone("utc+15")) { try SummaryConfiguration.timeZone(named: "utc+15") }
    }

    /// A misspelt zone gets the nearest names, whole or by their city; nothing near gets none.
    @Test func aMisspeltZoneGetsDidYouMean() {
        #expect(SummaryConfiguration.timeZoneSuggestions(for: "Europe/Amsterdm") == ["Europe/Amsterdam"])
        #expect(SummaryConfiguration.timeZoneSuggestions(for: "Amsterdm").first == "Europe/Amsterdam")
        #expect(SummaryConfiguration.timeZoneSuggestions(for: "America/New_Yrok").first == "America/New_York")
        #expect(SummaryConfiguration.timeZoneSuggestions(for: "utc") == ["UTC"])
        #expect(SummaryConfiguration.timeZoneSuggestions(for: "Mars/Base").isEmpty)
        #expect(SummaryConfiguration.timeZoneSuggestions(for: "").isEmpty)
        #expect(SummaryConfigurationError.unknownTimeZone("Europe/Amsterdm").description
            .hasPrefix("time zone 'Europe/Amsterdm' is unknown (did you mean Europe/Amsterdam?): use an IANA identifier"))
        #expect(!SummaryConfigurationError.unknownTimeZone("Mars/Base").description.contains("did you mean"))
    }
}
