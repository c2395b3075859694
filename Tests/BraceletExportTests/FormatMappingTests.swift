import BraceletDecoder
import BraceletExport
import BraceletSummaries
import BraceletVitality
import Foundation
import Testing

@Suite struct FormatMappingTests {
    func bodies(_ format: ExportFormat, schema: String) throws -> [[String: Any]] {
        let points = try Fixture.parsed(Fixture.dataset().rendered(as: format)) as? [[String: Any]] ?? []
        return points.filter { (($0["header"] as? [String: Any])?["schema_id"] as? [String: String])?["name"] == schema }
            .compactMap { $0["body"] as? [String: Any] }
    }

    @Test func omhHeartRateHasTheDailyAverageAndEachSlotWithOffsets() throws {
        let hr = try bodies(.omh, schema: "heart-rate")
        let average = try #require(hr.first { $0["descriptive_statistic"] as? String == "average" && ($0["effective_time_frame"] as? [String: Any]).map { "\($0)".contains("2026-03-08T00:00:00-05:00") } == true })
        #expect((average["heart_rate"] as? [String: Any])?["value"] as? Int == 61)
        #expect((average["heart_rate"] as? [String: Any])?["unit"] as? String == "beats/min")
        let interval = (average["effective_time_frame"] as? [String: Any])?["time_interval"] as? [String: String]
        #expect(interval?["end_date_time"] == "2026-03-09T00:00:00-04:00")
        let slot = try #require(hr.first { (($0["effective_time_frame"] as? [String: Any])?["time_interval"] as? [String: String])?["start_date_time"] == "2026-03-08T03:30:00-04:00" })
        #expect((slot["heart_rate"] as? [String: Any])?["value"] as? Int == 58)
        #expect((((slot["effective_time_frame"] as? [String: Any])?["time_interval"]) as? [String: String])?["end_date_time"] == "2026-03-08T03:31:00-04:00")
    }

    @Test func omhLeavesMissingValuesOutAndNamesTheTemperatureSite() throws {
        #expect(try bodies(.omh, schema: "oxygen-saturation").isEmpty)
        let temps = try bodies(.omh, schema: "body-temperature")
        let skin = temps.filter { $0["measurement_location"] as? String == "wrist" }
        let core = temps.filter { $0["measurement_location"] == nil }
        #expect(skin.count == 3)  // average, maximum, one slot
        #expect(core.count == 1)  // average only: no maximum, no slot
        #expect((core.first?["body_temperature"] as? [String: Any])?["value"] as? Double == 36.9)
        #expect((core.first?["body_temperature"] as? [String: Any])?["unit"] as? String == "C")
        let sdnn = try #require(bodies(.omh, schema: "rr-interval").first)
        #expect((sdnn["rr_interval"] as? [String: Any])?["value"] as? Double == 55.25)
        #expect(sdnn["descriptive_statistic"] as? String == "standard deviation")
    }

    @Test func ieeeStageSummaryHasOneEpisodePerStageRun() throws {
        let summary = try #require(bodies(.ieee1752, schema: "sleep-stage-summary").first)
        let episodes = summary["sleep_stage_episodes"] as? [[String: Any]] ?? []
        #expect(episodes.map { $0["sleep_stage_state"] as? String } == ["Awake", "Light_sleep", "Deep_sleep", "REM_sleep"])
        let stages = summary["sleep_stage_summary"] as? [String: Any]
        #expect((stages?["deep_sleep_duration"] as? [String: Any])?["value"] as? Int == 6000)
        #expect((stages?["deep_sleep_duration"] as? [String: Any])?["unit"] as? String == "sec")
        #expect(stages?["light_sleep_episode_count"] as? Int == 1)
    }

    @Test func fhirUsesLOINCAndUCUMAndLinksTheDay() throws {
        let data = try Fixture.dataset().rendered(as: .fhir, options: ExportOptions(user: "alice"))
        let bundle = try #require(try Fixture.parsed(data) as? [String: Any])
        let resources = (bundle["entry"] as? [[String: Any]] ?? []).compactMap { $0["resource"] as? [String: Any] }
        func observation(_ loinc: String) -> [[String: Any]] {
            resources.filter { "\($0["code"] ?? "")".contains("\"\(loinc)\"") || "\($0["code"] ?? "")".contains("= \(loinc);") }
        }
        let hr = try #require(observation("8867-4").first)
        #expect((hr["valueQuantity"] as? [String: Any])?["code"] as? String == "/min")
        #expect((hr["valueQuantity"] as? [String: Any])?["value"] as? Int == 61)
        // The subject is the bundle's own Patient entry, which holds the user id and nothing else.
        let entries = bundle["entry"] as? [[String: Any]] ?? []
        let patients = entries.filter { ($0["resource"] as? [String: Any])?["resourceType"] as? String == "Patient" }
        #expect(patients.count == 1)
        let patientURL = try #require(patients.first?["fullUrl"] as? String)
        let patient = try #require(patients.first?["resource"] as? [String: Any])
        #expect(Set(patient.keys) == ["resourceType", "id", "identifier"])
        #expect(patient["id"] as? String == "alice")
        #expect((patient["identifier"] as? [[String: String]]) == [["system": "urn:bracelet:user", "value": "alice"]])
        #expect((hr["subject"] as? [String: String])?["reference"] == patientURL)
        let observations = resources.filter { $0["resourceType"] as? String == "Observation" }
        #expect(observations.allSatisfy { ($0["subject"] as? [String: String])?["reference"] == patientURL })
        #expect((hr["effectivePeriod"] as? [String: String])?["start"] == "2026-03-08T00:00:00-05:00")
        let temps = observation("8310-5")
        #expect(temps.count == 2)
        #expect(temps.allSatisfy { ($0["valueQuantity"] as? [String: Any])?["code"] as? String == "Cel" })
        #expect(Set(temps.compactMap { ($0["bodySite"] as? [String: String])?["text"] }).count == 2)
        #expect(observation("59408-5").isEmpty)  // no SpO2 that day: no observation, never 0
        let sleep = try #require(observation("93832-4").first)
        #expect((sleep["valueQuantity"] as? [String: Any])?["value"] as? Int == 27000)
        #expect((sleep["component"] as? [[String: Any]])?.count == 6)
        #expect(observation("80404-7").count == 1)
        let panel = try #require(resources.first { $0["hasMember"] != nil })
        #expect((panel["hasMember"] as? [Any])?.count == resources.filter { $0["resourceType"] as? String == "Observation" }.count - 1)
        // The panel is coded (profiles and servers reject a code with text only), in our own code system.
        let panelCode = try #require(panel["code"] as? [String: Any])
        let coding = try #require((panelCode["coding"] as? [[String: Any]])?.first)
        #expect(coding["system"] as? String == "urn:bracelet:fhir:CodeSystem:observation")
        #expect(coding["code"] as? String == "daily-summary")
        #expect(panelCode["text"] as? String == "Bracelet daily summary 2026-03-08")
        let device = try #require(resources.first { $0["resourceType"] as? String == "Device" })
        #expect(device["serialNumber"] as? String == "V2TEST01")
    }

    @Test func fhirHoldsAPatientOnlyWithAUserAndItsIdOnlyWhenFHIRAllowsIt() throws {
        func patients(_ user: String?) throws -> [[String: Any]] {
            let data = try Fixture.dataset().rendered(as: .fhir, options: ExportOptions(user: user))
            let bundle = try #require(try Fixture.parsed(data) as? [String: Any])
            return (bundle["entry"] as? [[String: Any]] ?? []).compactMap { $0["resource"] as? [String: Any] }
                .filter { $0["resourceType"] as? String == "Patient" }
        }
        #expect(try patients(nil).isEmpty)
        // An underscore is not allowed in a FHIR id: the user id stays the identifier only.
        let patient = try #require(try patients("p_42").first)
        #expect(patient["id"] == nil)
        #expect((patient["identifier"] as? [[String: String]])?.first?["value"] == "p_42")
    }

    @Test func aDayThatIsNotWholeIsMarkedInTheCSVAndTheFHIRBundle() throws {
        func daily(_ dataset: ExportDataset) throws -> [String: String] {
            let text = String(decoding: try dataset.rendered(as: .csv, options: ExportOptions(table: .daily)), as: UTF8.self)
            let lines = text.components(separatedBy: "\r\n").filter { !$0.isEmpty }
            return Dictionary(uniqueKeysWithValues: zip(lines[0].components(separatedBy: ","), lines[1].components(separatedBy: ",")))
        }
        func resources(_ dataset: ExportDataset) throws -> [[String: Any]] {
            let bundle = try #require(try Fixture.parsed(try dataset.rendered(as: .fhir)) as? [String: Any])
            return (bundle["entry"] as? [[String: Any]] ?? []).compactMap { $0["resource"] as? [String: Any] }
                .filter { $0["resourceType"] as? String == "Observation" }
        }
        // The fixture's day: all 1380 minutes recorded.
        var dataset = try Fixture.dataset()
        dataset.now = Fixture.dayEnd + 3600
        #expect(try daily(dataset)["day_status"] == "whole")
        #expect(try resources(dataset).allSatisfy { $0["status"] as? String == "final" && $0["note"] == nil })
        // The same day while it runs: its values are so far.
        dataset.now = Fixture.dayEnd - 3600
        #expect(try daily(dataset)["day_status"] == "ongoing")
        let running = try resources(dataset)
        let dayValues = running.filter { ($0["effectivePeriod"] as? [String: String])?["end"] == "2026-03-09T00:00:00-04:00" }
        #expect(!dayValues.isEmpty && dayValues.allSatisfy { $0["status"] as? String == "preliminary" })
        #expect(running.filter { $0["note"] != nil }.count == 1)  // the panel says why
        // Over, with 423 of 1380 minutes: partial, final values, and the panel names the minutes.
        dataset.now = Fixture.dayEnd + 3600
        dataset.days[0].summary.coverage = DayCoverage(dayEnd: Fixture.dayEnd, dayMinutes: 1380, recordedMinutes: 423, wornMinutes: 400, dayIsOver: true)
        let values = try daily(dataset)
        #expect(values["day_status"] == "partial" && values["recorded_minutes"] == "423" && values["day_minutes"] == "1380")
        let panel = try #require(try resources(dataset).first { $0["hasMember"] != nil })
        #expect(panel["status"] as? String == "final")
        #expect("\(panel["note"] ?? "")".contains("423 of 1380 minutes recorded"))
    }

    @Test func csvWritesMissingValuesAsEmptyCells() throws {
        let text = String(decoding: try Fixture.dataset().rendered(as: .csv, options: ExportOptions(table: .daily)), as: UTF8.self)
        let lines = text.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        #expect(lines.count == 2)
        let header = lines[0].components(separatedBy: ",")
        let row = lines[1].components(separatedBy: ",")
        #expect(header.count == row.count)
        let values = Dictionary(uniqueKeysWithValues: zip(header, row))
        #expect(values["spo2_avg_pct"] == "")
        #expect(values["hr_avg_bpm"] == "61")
        #expect(values["day_hours"] == "23")
        #expect(values["core_temp_avg_c"] == "36.9")
    }

    @Test func rookCarriesTheNightAndTheDayAsTheVitalityMappingReadsThem() throws {
        let file = ROOKExport.file(try Fixture.dataset())
        let day = try #require(file.days.first)
        #expect(day.date == LocalDate(iso: "2026-03-08"))
        #expect(day.sleepSummary?.sleepDurationSecondsInt == 27000)
        #expect(day.sleepSummary?.timeInBedSecondsInt == 28800)
        #expect(day.sleepSummary?.hrvSdnnMsDouble == 55.25)
        #expect(day.sleepSummary?.breathsAvgPerMinInt == 14)  // 13.6 in whole breaths
        #expect(day.physicalSummary?.stepsInt == 8421)
        #expect(day.physicalSummary?.activeCaloriesKcalDouble == 402.25)
        #expect(day.physicalSummary?.hrRestingBpmInt == 52)
        // One movement minute: the slot with walking (the heart-rate slots are below T60).
        #expect(day.physicalSummary?.activeMinutesTotalInt == 1)
    }

    @Test func stageRunsMergeAdjacentSamplesAndSkipUndefinedOnes() throws {
        let runs = try Fixture.session.stageRuns
        #expect(runs.map(\.stage) == [.awake, .light, .deep, .rem])
        #expect(runs[1].start == Fixture.sleepStart + 600)
        #expect(runs[1].end == Fixture.sleepStart + 4200)
    }
}
