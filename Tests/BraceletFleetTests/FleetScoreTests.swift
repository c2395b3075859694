import BraceletDecoder
import BraceletStore
import BraceletSummaries
import BraceletVitality
import Foundation
import Testing
@testable import BraceletFleet

/// `days` UTC days of one wearer from `first`, summarised by the summary engine: asleep 23:00-07:00
/// (a few awake minutes either side; light, deep, light and REM in turn), heart rate `resting` + 12
/// awake and `resting` asleep, a walk of `walkMinutes` at 09:00 at `stepsPerMinute`. The evening
/// before the first day is recorded too, so the first day has its night; the last `cutHours` hours
/// are not (the last day is then incomplete).
func wornDays(from first: String, days: Int, resting: Int, walkMinutes: Int, stepsPerMinute: Int, cutHours: Int = 0) throws -> SummaryDocument {
    let firstDay = Int64(try #require(LocalDate(iso: first)).dayNumber) * 86_400
    let start = firstDay - 3 * 3_600
    let slots = (0..<((days * 24 + 3 - cutHours) * 60)).map { index in
        let time = start + Int64(index) * 60
        let minute = Int(((time % 86_400) + 86_400) % 86_400) / 60
        var slot = Slot(start: time, intervalSeconds: 60)
        let asleep = minute >= 23 * 60 || minute < 7 * 60
        let settling = (22 * 60 + 50..<23 * 60).contains(minute) || (7 * 60..<7 * 60 + 10).contains(minute)
        let walking = (9 * 60..<9 * 60 + walkMinutes).contains(minute)
        slot.bpm = walking ? 115 : asleep ? resting : resting + 12
        slot.bpmQuality = 4
        slot.steps = walking ? stepsPerMinute : 0
        slot.activity = walking ? 2 : 7
        slot.wearing = 4
        slot.breath = asleep ? 14 : 16
        slot.breathQuality = 4
        if settling { slot.sleepStage = 1 }
        if asleep {
            let inNight = (minute - 23 * 60 + 1_440) % 1_440
            slot.sleepStage = [2, 3, 2, 4][(inNight / 30) % 4]
        }
        return slot
    }
    let configuration = try SummaryConfiguration(age: 40)
    let (document, _) = SummaryEngine.summarize(slots: slots, configuration: configuration, now: start + Int64(days + 2) * 86_400)
    return document
}

/// A fleet of devices with different days, delivered by a gateway's sink as the owner.
final class ScoredFleet {
    let cluster: TestCluster
    let owner: FleetServer

    init() throws {
        cluster = try TestCluster()
        owner = try FleetServer(uri: cluster.url)
        let gateway = try GatewayDatabase()
        // Two wearers with a fortnight each, unlike each other; one with two days only (too few for
        // a 7-day window); one whose rows arrive without score inputs (read from the payloads);
        // one with a sleep session but no day summary.
        try deliver(gateway, "FS-A", try wornDays(from: "2026-03-01", days: 14, resting: 56, walkMinutes: 70, stepsPerMinute: 120), user: "P-A")
        try deliver(gateway, "FS-B", try wornDays(from: "2026-03-03", days: 12, resting: 72, walkMinutes: 15, stepsPerMinute: 80), user: nil)
        try deliver(gateway, "FS-C", try wornDays(from: "2026-03-10", days: 2, resting: 60, walkMinutes: 40, stepsPerMinute: 100), user: "P-C")
        try deliver(gateway, "FS-D", try wornDays(from: "2026-03-02", days: 9, resting: 64, walkMinutes: 30, stepsPerMinute: 95), user: "P-D")
        // One whose last day is half recorded, with its days after the fixed end of one run.
        try deliver(gateway, "FS-F", try wornDays(from: "2026-03-20", days: 9, resting: 62, walkMinutes: 50, stepsPerMinute: 110, cutHours: 12),
                    user: "P-F")
        let lone = try wornDays(from: "2026-03-05", days: 1, resting: 60, walkMinutes: 0, stepsPerMinute: 0).sleepSessions[0]
        _ = try gateway.store.upsertSleepSession(device: "FS-E", start: lone.startSession, stop: lone.stopSession, localDate: lone.recordDate, value: lone)
        let sink = PostgresSink(server: owner)
        let outcomes = sink.deliver(batch: try gateway.store.outboxEntries())
        #expect(outcomes.allSatisfy { $0 == .delivered(httpStatus: nil) })
        // FS-D as delivered before the gateways made score inputs.
        let connection = try PGConnection(server: owner)
        try connection.execute("UPDATE fleet_daily_summaries SET score_input = NULL WHERE device = 'FS-D'")
        try connection.execute("UPDATE fleet_sleep_sessions SET score_input = NULL WHERE device = 'FS-D'")
    }

    private func deliver(_ gateway: GatewayDatabase, _ device: String, _ document: SummaryDocument, user: String?) throws {
        if let user { try gateway.store.setUser(user, device: device) }
        let first = document.days.dropFirst()   // the evening before the first day: incomplete
        for day in first {
            _ = try gateway.store.upsertDailySummary(device: device, localDate: day.date, kind: "daily", value: day)
        }
        for session in document.sleepSessions {
            _ = try gateway.store.upsertSleepSession(device: device, start: session.startSession, stop: session.stopSession,
                                                     localDate: session.recordDate, value: session)
        }
    }

    /// What `score --postgres --device` makes of `device`: its report, or its error's text.
    func single(_ device: String, age: Int, builder: VitalityWindowBuilder) throws -> Single {
        let days = try FleetReader(server: owner).vitalityDays(of: .device(device), age: age)
        guard !days.isEmpty else { return .failed("the fleet database holds no day summaries for device \(device)") }
        do { return .scored(try ScoreReport.make(days: days, age: age, builder: builder, source: "postgres device \(device)")) } catch {
            return .failed("\(error)")
        }
    }

    /// One device's outcome of `score --postgres --device`.
    enum Single {
        case scored(ScoreReport)
        case failed(String)
    }
}

/// A JSON text as Foundation objects, for comparing documents whatever their layout.
private func parsed(_ bytes: [UInt8]) throws -> NSObject {
    try #require(try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]) as? NSObject)
}

@Suite(.serialized, .enabled(if: TestCluster.available, TestCluster.skipReason))
struct FleetScoreTests {
    /// Every device's score is the one `score --postgres --device` gives it (same report, same
    /// `scores` object), for a window ending at each device's last day and for a fixed end, and
    /// whether the batches hold one device or all of them; the scores table holds each window.
    @Test func everyDeviceScoresAsScoreDoesForThatDevice() throws {
        let fleet = try ScoredFleet()
        let fixedEnd = try #require(LocalDate(iso: "2026-03-11"))
        for builder in [VitalityWindowBuilder(length: 7), VitalityWindowBuilder(length: 7, end: fixedEnd)] {
            var runs: [[FleetScore]] = []
            for budget in [1, FleetScorer.defaultBatchBudget] {
                var results: [FleetScore] = []
                let summary = try FleetScorer(server: fleet.owner).scoreAll(ages: FleetScoreAges(default: 40), builder: builder, batchBudget: budget) { results.append($0) }
                #expect(results.map(\.device) == ["FS-A", "FS-B", "FS-C", "FS-D", "FS-E", "FS-F"])
                #expect(summary.devices == 6 && summary.scored == results.count { $0.report != nil })
                runs.append(results)
            }
            #expect(runs[0].map { $0.json(windowDays: 7) } == runs[1].map { $0.json(windowDays: 7) })
            for result in runs[1] {
                switch try fleet.single(result.device, age: 40, builder: builder) {
                case let .scored(report):
                    #expect(result.report == report, "\(result.device)")
                    #expect(result.error == nil)
                    let printed = try parsed(Array(report.json().utf8)) as? NSDictionary
                    let item = try parsed(result.json(windowDays: 7)) as? NSDictionary
                    #expect(item?["scores"] as? NSDictionary == printed?["scores"] as? NSDictionary, "\(result.device)")
                    #expect(item?["device"] as? String == result.device)
                case let .failed(message):
                    #expect(result.report == nil && result.error == message, "\(result.device): \(result.error ?? "scored")")
                    #expect((try parsed(result.json(windowDays: 7)) as? NSDictionary)?["scores"] is NSNull)
                }
            }
        }
        // The data differ: A, B, D (read from its payloads) and F are scored, each differently; C
        // has too few days; E has no day at all; F's last day is left out as incomplete.
        let byDevice = try FleetScorer(server: fleet.owner).scoreAllCollected(ages: FleetScoreAges(default: 40), builder: VitalityWindowBuilder(length: 7))
        #expect(byDevice.filter { $0.report != nil }.map(\.device) == ["FS-A", "FS-B", "FS-D", "FS-F"])
        #expect(Set(byDevice.compactMap { $0.scoresJSON.isEmpty ? nil : $0.scoresJSON }).count == 4)
        #expect(byDevice[5].window?.end.description == "2026-03-27" && byDevice[5].report?.window.skippedDays.map(\.date.description) == ["2026-03-28"])
        #expect(byDevice[2].error?.contains("does not have enough data") == true && byDevice[2].window != nil)
        #expect(byDevice[4].error == "the fleet database holds no day summaries for device FS-E" && byDevice[4].window == nil)
        #expect(byDevice[0].user == "P-A" && byDevice[1].user == nil)

        // Stored: a row per device and window except E's (it has no window), the totals and
        // scores as printed; the fixed end's run kept its rows beside the latest run's (FS-C's
        // latest window is the fixed one: one row; FS-F's fixed window has no day, its row says so).
        let connection = try PGConnection(server: fleet.owner)
        for result in byDevice {
            let rows = try connection.execute("""
                SELECT total::text, scores::text, error FROM fleet_scores WHERE device = $1 AND window_days = 7 AND window_end = $2::date
                """, [result.device, result.window?.end.description ?? "1900-01-01"]).values
            guard result.window != nil else { #expect(rows.isEmpty); continue }
            #expect(rows.count == 1, "\(result.device)")
            #expect(rows.first?[0] == result.total.map { String($0) })
            #expect(try rows.first?[1].map { try parsed(Array($0.utf8)) } == (result.report == nil ? nil : try parsed(result.scoresJSON)))
            #expect(rows.first?[2] == result.error)
        }
        #expect(try connection.execute("SELECT count(*) FROM fleet_scores WHERE window_end = '2026-03-11'").values == [["5"]])
        #expect(try connection.execute("SELECT count(*) FROM fleet_scores").values == [["9"]])
        #expect(try connection.execute("SELECT error FROM fleet_scores WHERE device = 'FS-F' AND window_end = '2026-03-11'").values.first?.first??
            .contains("window 2026-03-05...2026-03-11 does not have enough data") == true)
    }

    /// Each device is scored for its own age: its serial's line, else its participant's, else the
    /// default; a device with none has no score and says how to give one.
    @Test func eachDeviceIsScoredForTheAgeGivenForItOrItsParticipant() throws {
        let fleet = try ScoredFleet()
        let ages = FleetScoreAges(default: nil, bySubject: try FleetScoreAges.parse("subject,age\n# the study's roster\nP-A,71\nFS-B, 25\nFS-D,19\n",
                                                                                   what: "ages.csv"))
        let results = try FleetScorer(server: fleet.owner).scoreAllCollected(ages: ages, builder: VitalityWindowBuilder(length: 7))
        #expect(results.map(\.age) == [71, 25, nil, 19, nil, nil])
        for result in results where result.age != nil {
            guard case let .scored(report) = try fleet.single(result.device, age: result.age!, builder: VitalityWindowBuilder(length: 7)) else {
                Issue.record("\(result.device) has no score"); continue
            }
            #expect(result.report == report && report.age == result.age, "\(result.device)")
        }
        #expect(results[2].report == nil && results[2].error?.contains("no age was given for device FS-C (participant P-C): give --age N") == true)
        // The same days at the default age score differently (other reference ranges).
        let atForty = try FleetScorer(server: fleet.owner).scoreAllCollected(ages: FleetScoreAges(default: 40), builder: VitalityWindowBuilder(length: 7))
        #expect(atForty[0].scoresJSON != results[0].scoresJSON)
    }

    /// The scores are read by readers and written by scorers only: a gateway can neither read nor
    /// write them, a reader cannot write them nor run `fleet score`, and a scorer reads every
    /// gateway's days but writes nothing else.
    @Test func readersReadTheScoresAndOnlyScorersWriteThem() throws {
        let fleet = try RoleFleet()
        let admin = try FleetAdmin(server: fleet.owner)
        let scorer = try fleet.cluster.server(as: try admin.addScorer("sc"))
        for (device, server) in [("A1", fleet.gatewayA), ("B1", fleet.gatewayB)] {
            let store = try GatewayDatabase()
            let document = try wornDays(from: "2026-03-01", days: 8, resting: device == "A1" ? 58 : 66, walkMinutes: 30, stepsPerMinute: 100)
            for day in document.days.dropFirst() { _ = try store.store.upsertDailySummary(device: device, localDate: day.date, kind: "daily", value: day) }
            for session in document.sleepSessions {
                _ = try store.store.upsertSleepSession(device: device, start: session.startSession, stop: session.stopSession,
                                                       localDate: session.recordDate, value: session)
            }
            #expect(PostgresSink(server: server).deliver(batch: try store.store.outboxEntries()).allSatisfy { $0 == .delivered(httpStatus: nil) })
        }

        // A scorer sees both gateways' devices and stores both scores.
        var results: [FleetScore] = []
        _ = try FleetScorer(server: scorer).scoreAll(ages: FleetScoreAges(default: 40), builder: VitalityWindowBuilder(length: 7)) { results.append($0) }
        #expect(results.map(\.device) == ["A1", "B1"] && results.allSatisfy { $0.report != nil })

        let reader = try PGConnection(server: fleet.reader)
        #expect(try reader.execute("SELECT device FROM fleet_scores ORDER BY device").values == [["A1"], ["B1"]])
        #expect(try reader.execute("SELECT count(*) FROM fleet_scores WHERE scores->>'total' IS NOT NULL").values == [["2"]])
        let row = "INSERT INTO fleet_scores (device, window_days, window_end, window_start, age, error) VALUES ('X', 7, '2026-03-08', '2026-03-02', 40, 'x')"
        for sql in [row, "UPDATE fleet_scores SET total = 100", "DELETE FROM fleet_scores"] {
            #expect(refusal(reader, sql) == "42501", "reader: \(sql)")
        }
        let gateway = try PGConnection(server: fleet.gatewayA)
        for sql in ["SELECT * FROM fleet_scores", row, "UPDATE fleet_scores SET total = 100", "DELETE FROM fleet_scores"] {
            #expect(refusal(gateway, sql) == "42501", "gateway: \(sql)")
        }
        let scoring = try PGConnection(server: scorer)
        for sql in ["DELETE FROM fleet_scores", "UPDATE fleet_daily_summaries SET payload = '{}'", "DELETE FROM fleet_devices",
                    "SELECT * FROM fleet_assignments", "SELECT * FROM fleet_gateways", "CREATE TABLE stolen (x text)",
                    "INSERT INTO fleet_devices (device, last_sync_at) VALUES ('N', now())"] {
            #expect(refusal(scoring, sql) == "42501", "scorer: \(sql)")
        }
        // Neither a reader nor a gateway may run it: refused before anything is read.
        for server in [fleet.reader, fleet.gatewayA] {
            let error = #expect(throws: FleetError.self) { try FleetScorer(server: server) }
            #expect(error?.description.contains("may not write the scores") == true)
            #expect(error?.description.contains("bracelet fleet add-scorer") == true)
        }
        #expect(try reader.execute("SELECT count(*) FROM fleet_scores").values == [["2"]])
    }
}

@Suite struct FleetScoreAgesTests {
    /// Every line that is not SUBJECT,AGE with an age 18-120, and a subject given twice, is named.
    @Test func aLineThatIsNoSubjectAndAgeIsNamed() throws {
        #expect(try FleetScoreAges.parse("SN1,40\r\n\n  P-9 , 120 \n", what: "a.csv") == ["SN1": 40, "P-9": 120])
        for (text, line) in [("SN1,40\nSN2", 2), ("SN1,17", 1), ("SN1,forty", 1), (",40", 1), ("SN1,40,x", 1), ("subject,age\nsubject,age", 2)] {
            let error = #expect(throws: FleetError.self) { try FleetScoreAges.parse(text, what: "a.csv") }
            #expect(error?.description.contains("a.csv line \(line) is") == true, "\(text)")
        }
        let twice = #expect(throws: FleetError.self) { try FleetScoreAges.parse("SN1,40\nSN1,41", what: "a.csv") }
        #expect(twice?.description.contains("line 2 gives SN1 an age again") == true)
        let ages = FleetScoreAges(default: 50, bySubject: ["SN1": 30, "P-1": 60])
        #expect(ages.age(device: "SN1", user: "P-1") == 30)
        #expect(ages.age(device: "SN2", user: "P-1") == 60)
        #expect(ages.age(device: "SN2", user: nil) == 50)
        #expect(FleetScoreAges(default: nil).age(device: "SN2", user: "P-2") == nil)
    }
}

extension FleetScorer {
    /// Every device's result, collected.
    func scoreAllCollected(ages: FleetScoreAges, builder: VitalityWindowBuilder) throws -> [FleetScore] {
        var results: [FleetScore] = []
        _ = try scoreAll(ages: ages, builder: builder) { results.append($0) }
        return results
    }
}
