import BraceletDecoder
import Foundation
import Testing
@testable import BraceletSummaries

/// A value outside its physiological range is missing, counted per day and reported; never
/// clamped, never 0.
@Suite struct PhysiologicalRangeTests {
    @Test func impossibleCSVValuesAreMissingAndCounted() throws {
        // BPM 250 and 25, breath 50 and 3, SpO2 101, core 10 and 50 °C, EDA 150 µS between good values.
        let text = """
        timestamp_ms,bpm,bpm_q,breath,breath_q,spo2,spo2_q,core_temp_c,eda_us
        1768464000000,60,4,14,4,97,4,36.5,2.5
        1768464060000,250,4,50,4,101,4,10,150
        1768464120000,25,4,3,4,,,50,
        1768464180000,70,4,16,4,,,,
        """
        let input = try CSVSampleReader.read(text)
        #expect(input.diagnostics.isEmpty)
        let (document, diagnostics) = SummaryEngine.summarize(slots: input.slots, configuration: try utcConfiguration(), now: testNow)
        let day = try #require(document.days.first)
        #expect(day.bpm.averageBPM == 65)      // (60 + 70) / 2
        #expect(day.bpm.maxDayBPM == 70)
        #expect(day.bpm.minDayBPM == 60)
        #expect(day.breath.averageBreath == 15) // (14 + 16) / 2
        #expect(day.breath.maxDayBreath == 16)
        #expect(day.breath.minDayBreath == 14)
        #expect(day.spo2.maxDaySpo2 == 97)
        #expect(day.coreBodyTemperature.maxDayCoreBodyTemperature == 36.5)
        #expect(day.emography.stressLevelSkinConductanceMax == 2.5)
        let counts = Dictionary(uniqueKeysWithValues: day.diagnostics.outOfRange.map { ($0.field, $0) })
        #expect(counts[.bpm]?.samples == 2)
        #expect(counts[.bpm]?.lowestSeen == 25)
        #expect(counts[.bpm]?.highestSeen == 250)
        #expect(counts[.breath]?.samples == 2)
        #expect(counts[.spo2]?.samples == 1)
        #expect(counts[.coreTempC]?.samples == 2)
        #expect(counts[.edaMicrosiemens]?.samples == 1)
        #expect(counts[.edaMicrosiemens]?.allowedMax == 100)
        #expect(diagnostics.filter { $0.kind == .outOfRange }.count == 8)
        let json = String(decoding: try document.jsonData(), as: UTF8.self)
        #expect(json.contains("\"outOfRange\""))
    }

    @Test func decoderFlaggedValuesAreNotSummarised() throws {
        // summarize-1/-2/-3: skin temperature 502.44, SpO2 101, heart rate 250 next to good samples.
        let samples = [
            slot(at(8, 0), bpm: 250, skin: 502.44, spo2: 101, spo2Q: 4),
            slot(at(8, 1), bpm: 61, skin: 34.25, spo2: 96, spo2Q: 4),
        ]
        let day = try #require(try engine(samples).day("2026-01-15"))
        #expect(day.bodyTemp.maxDayTemp == 34.25)
        #expect(day.spo2.maxDaySpo2 == 96)
        #expect(day.bpm.maxDayBPM == 61)
        #expect(day.diagnostics.outOfRange.map(\.field) == [.bpm, .spo2, .skinTempC])
    }

    @Test func csvRangesNoWiderThanTheSummaryModel() throws {
        // csvsum-1: SpO2 255, BPM 0 and skin temperature 0.5 were averaged.
        let text = """
        timestamp_ms,bpm,bpm_q,spo2,spo2_q,skin_temp_c
        1768464000000,0,4,255,4,0.5
        """
        let input = try CSVSampleReader.read(text, intervalSeconds: 60)
        let day = try #require(try engine(input.slots).day("2026-01-15"))
        #expect(day.spo2.averageSpo2 == nil)
        #expect(day.bpm.minDayBPM == nil)
        #expect(day.bodyTemp.averageTemp == nil)
        #expect(day.diagnostics.outOfRange.map(\.samples) == [1, 1, 1])
    }

    @Test func hugeHeartRatesFromADatabaseDoNotTrapTheRestingHeartRate() throws {
        // db-2: bpm = Int64.max for 40 minutes, then 30 minutes at 55.
        let huge = (0..<40).map { slot(at(8, $0), bpm: Int.max) }
        let good = (40..<70).map { slot(at(8, $0), bpm: 55) }
        let day = try #require(try engine(huge + good).day("2026-01-15"))
        #expect(day.bpm.dailyRestingBPM == 55)
        #expect(day.bpm.maxDayBPM == 55)
        #expect(day.diagnostics.outOfRange.first?.samples == 40)
        #expect(day.diagnostics.outOfRange.first?.highestSeen == Double(Int.max))
    }

    @Test func nonFiniteAndNegativeValuesAreMissingNotAveraged() throws {
        let samples = [
            slot(at(9, 0), bpm: -5, breath: .nan, breathQ: 4, skin: .infinity, eda: -1e308),
            slot(at(9, 1), bpm: 64, breath: 12, breathQ: 4, skin: 33, eda: 1.5),
        ]
        let day = try #require(try engine(samples).day("2026-01-15"))
        #expect(day.bpm.averageBPM == 64)
        #expect(day.bpm.minDayBPM == 64)
        #expect(day.breath.averageBreath == 12)
        #expect(day.bodyTemp.averageTemp == 33)
        #expect(day.emography.stressLevelSkinConductanceAvg == 1.5)
        let breath = day.diagnostics.outOfRange.first { $0.field == .breath }
        #expect(breath?.samples == 1)
        #expect(breath?.lowestSeen == nil) // NaN has no value to show
        #expect(day.diagnostics.outOfRange.first { $0.field == .bpm }?.lowestSeen == -5)
    }
}
