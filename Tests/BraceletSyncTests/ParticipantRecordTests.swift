import BraceletStore
import Foundation
import Testing

/// The person wearing a bracelet is stored once (the participant record) and every command takes
/// their settings from it: these run the `bracelet` executable as a user would, on the bundled
/// captures, and check the stored days and what receivers get.
@Suite(.serialized) struct ParticipantRecordTests {
    static let captures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("captures").path
    static let serial = "V23DAY01"
    /// Local midnights of 2026-06-16, -17 and -18 in America/New_York (EDT, UTC-4).
    static let newYorkDayStarts = ["2026-06-16": 1_781_582_400, "2026-06-17": 1_781_668_800, "2026-06-18": 1_781_755_200]

    /// Runs bracelet and requires exit status 0.
    @discardableResult
    static func run(_ arguments: [String]) throws -> (out: String, err: String) {
        let result = try runBracelet(arguments)
        #expect(result.status == 0, "bracelet \(arguments.joined(separator: " ")): \(result.err)")
        return (result.out, result.err)
    }

    /// `dayStart` of each stored daily summary, by date.
    static func dayStarts(_ store: Store) throws -> [String: Int] {
        var starts: [String: Int] = [:]
        let reader = DocumentReader()
        for day in try store.packedDailySummaries(device: serial, kind: "daily") {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(try reader.read(day.document))) as? [String: Any])
            starts[day.localDate] = object["dayStart"] as? Int
        }
        return starts
    }

    /// The stored vitality rows (age, movement minutes) by date.
    static func vitality(_ store: Store) throws -> [String: (age: Int?, movement: Double?)] {
        var rows: [String: (age: Int?, movement: Double?)] = [:]
        for row in try store.vitalityMetrics(device: serial, fromDate: "0000-01-01", toDate: "9999-12-31") {
            let object = try #require(try JSONSerialization.jsonObject(with: row.json) as? [String: Any])
            rows[row.localDate] = (object["age"] as? Int, object["movementMinutes"] as? Double)
        }
        return rows
    }

    @Test func theAdvisedRecomputeAfterAnIngestWithoutAgeKeepsTheDaysBoundsAndQueuesOnlyChangedDays() throws {
        let folder = try TemporaryFolder()
        let db = folder.path("d.db")
        let ingest = try Self.run(["ingest", Self.captures + "/v2-three-days.btsnoop", "--db", db, "--tz", "America/New_York"])
        #expect(ingest.err.contains("bracelet person set --db \(db) --device \(Self.serial) --age N"), "\(ingest.err)")
        let store = try Store(path: db)
        #expect(try Self.dayStarts(store) == Self.newYorkDayStarts)
        let firstKeys = try store.outboxEntries().map(\.key)
        #expect(firstKeys.count == 10)

        // The advice as an older build gave it: the record keeps the zone, the age fills the gap.
        let recompute = try Self.run(["recompute", "--db", db, "--age", "35"])
        #expect(!recompute.err.contains("UTC"), "\(recompute.err)")
        #expect(try Self.dayStarts(store) == Self.newYorkDayStarts, "local-midnight bounds kept")
        for day in try store.packedDailySummaries(device: Self.serial, kind: "daily") {
            #expect(day.stamp?.basis == "tz=America/New_York;slot=60;quality=2;hrmax=183.5;height=170.0;goal=10000")
        }
        let recomputed = try Self.vitality(store)
        #expect(recomputed.count == 3 && recomputed.values.allSatisfy { $0.age == 35 && $0.movement != nil }, "\(recomputed)")
        // The zones changed each day's summary (a second version); the sleep sessions did not change.
        let keys = try store.outboxEntries().map(\.key)
        #expect(Set(keys).subtracting(firstKeys) == ["\(Self.serial)/2026-06-16/daily/v2", "\(Self.serial)/2026-06-17/daily/v2",
                                                    "\(Self.serial)/2026-06-18/daily/v2"])
        // Following the advice again, or recomputing without flags, changes nothing and queues nothing.
        try Self.run(["recompute", "--db", db, "--age", "35"])
        let plain = try Self.run(["recompute", "--db", db])
        #expect(plain.out.contains("0 daily summaries and 0 sleep sessions changed"), "\(plain.out)")
        #expect(try store.outboxEntries().map(\.key) == keys)
        #expect(try Self.dayStarts(store) == Self.newYorkDayStarts)
        let shown = try Self.run(["person", "show", "--db", db])
        #expect(shown.out.contains("tz: America/New_York") && shown.out.contains("age: 35"), "\(shown.out)")
    }

    @Test func recomputeWithAZoneAndNoAgeKeepsTheAgeAndScoringWithAnotherAgeSaysSo() throws {
        let folder = try TemporaryFolder()
        let db = folder.path("d.db")
        try Self.run(["ingest", Self.captures + "/v2-three-days.btsnoop", "--db", db, "--tz", "America/New_York", "--age", "40"])
        let store = try Store(path: db)
        let before = try Self.vitality(store)
        #expect(before.count == 3 && before.values.allSatisfy { $0.age == 40 && $0.movement != nil })
        let keys = try store.outboxEntries().map(\.key)

        try Self.run(["recompute", "--db", db, "--tz", "America/New_York"])
        let after = try Self.vitality(store)
        #expect(after.keys.sorted() == before.keys.sorted())
        for (date, row) in before { #expect(after[date]?.age == 40 && after[date]?.movement == row.movement, "\(date)") }
        #expect(try store.packedDailySummaries(device: Self.serial, kind: "daily").allSatisfy { $0.stamp?.basis.contains("hrmax=180.0") == true })
        #expect(try store.outboxEntries().map(\.key) == keys, "nothing changed, nothing queued")

        // Another zone would re-cut the stored days: a writing command refuses and says how.
        let moved = try runBracelet(["recompute", "--db", db, "--tz", "Europe/Amsterdam"])
        #expect(moved.status != 0)
        #expect(moved.err.contains("bracelet person set --db \(db) --device \(Self.serial) --tz Europe/Amsterdam"), "\(moved.err)")
        #expect(try Self.dayStarts(store) == Self.newYorkDayStarts)

        let reingest = try runBracelet(["ingest", Self.captures + "/v2-three-days.btsnoop", "--db", db, "--tz", "Europe/Amsterdam"])
        #expect(reingest.status != 0 && reingest.err.contains("bracelet person set --db \(db) --device \(Self.serial) --tz Europe/Amsterdam"))
        #expect(try store.outboxEntries().map(\.key) == keys)

        let score = try Self.run(["score", "--db", db, "--age", "60", "--min-days", "1", "--include-incomplete"])
        #expect(score.err.contains("3 of 3 stored days were computed for age 40"), "\(score.err)")
        #expect(score.err.contains("bracelet person set --db \(db) --device \(Self.serial) --age 60"), "\(score.err)")
        #expect(score.out.contains("age 60"))

        // Changing the record recomputes the days for the new age; scoring then needs no flag.
        let set = try Self.run(["person", "set", "--db", db, "--device", Self.serial, "--age", "60"])
        #expect(set.out.contains("recomputed 3 days whose settings changed (2026-06-16..2026-06-18)"), "\(set.out)")
        let reaged = try Self.vitality(store)
        #expect(reaged.count == 3 && reaged.values.allSatisfy { $0.age == 60 && $0.movement != nil }, "\(reaged)")
        let rescored = try Self.run(["score", "--db", db, "--min-days", "1", "--include-incomplete"])
        #expect(!rescored.err.contains("computed for age"), "\(rescored.err)")
        #expect(rescored.out.contains("age 60"))

        // A birthday from a date on: the older days keep the age they were computed with.
        let birthday = try Self.run(["person", "set", "--db", db, "--device", Self.serial, "--age", "61", "--from", "2026-06-18"])
        #expect(birthday.out.contains("recomputed 1 days whose settings changed (2026-06-18..2026-06-18)"), "\(birthday.out)")
        let ages = try Self.vitality(store).mapValues(\.age)
        #expect(ages == ["2026-06-16": 60, "2026-06-17": 60, "2026-06-18": 61])
        let summary = try Self.run(["summarize", "--db", db])
        #expect(!summary.err.contains("raw rows"), "each stored day served with the settings it was computed with: \(summary.err)")
        #expect(summary.out.contains("\"timeZone\" : \"America/New_York\""))
    }

    @Test func aReSendCarriesTheUserTheRecordHasWhenItIsSentAndAClearedUserIsGone() throws {
        let folder = try TemporaryFolder()
        let db = folder.path("d.db")
        try Self.run(["ingest", Self.captures + "/v2-three-days.btsnoop", "--db", db, "--tz", "America/New_York", "--age", "40"])
        let server = try TestHTTPServer { _, _ in .respond(status: 200, body: "") }
        defer { server.stop() }
        func users(from index: Int) throws -> [(header: String?, body: String?)] {
            try server.requests[index...].map { request in
                let body = try #require(try JSONSerialization.jsonObject(with: request.decodedBody) as? [String: Any])
                return (request.headers["x-bracelet-user"], body["user"] as? String)
            }
        }
        try Self.run(["sync", "--db", db, "--set-user", "P-0042", "--device", Self.serial, "--webhook", server.url, "--secret", "k", "--quiet"])
        #expect(server.requests.count == 10)
        #expect(try users(from: 0).allSatisfy { $0.header == "P-0042" && $0.body == "P-0042" })

        try Self.run(["sync", "--db", db, "--set-user", "P-0099", "--device", Self.serial])
        try Self.run(["sync", "--db", db, "--resend", "--from", "2026-06-16", "--to", "2026-06-18", "--webhook", server.url, "--secret", "k", "--quiet"])
        #expect(server.requests.count == 20)
        #expect(try users(from: 10).allSatisfy { $0.header == "P-0099" && $0.body == "P-0099" })

        let cleared = try Self.run(["person", "set", "--db", db, "--device", Self.serial, "--no-user"])
        #expect(cleared.out.contains("user is now none"), "\(cleared.out)")
        try Self.run(["sync", "--db", db, "--resend", "--from", "2026-06-16", "--to", "2026-06-18", "--webhook", server.url, "--secret", "k", "--quiet"])
        #expect(server.requests.count == 30)
        #expect(try users(from: 20).allSatisfy { $0.header == nil && $0.body == nil })
        #expect(try store(db).user(ofDevice: Self.serial) == nil)
    }

    @Test func theFHIRSubjectIsTheRecordsUserAndOMHLocalTimesKeepTheirOffsetAcrossADaylightSavingNight() throws {
        let folder = try TemporaryFolder()
        let db = folder.path("d.db")
        try Self.run(["ingest", Self.captures + "/v2-three-days.btsnoop", "--db", db, "--tz", "America/New_York", "--age", "40"])
        try Self.run(["sync", "--db", db, "--set-user", "P-0042", "--device", Self.serial])
        let fhir = try Self.run(["export", "--db", db, "--format", "fhir"])
        let bundle = try #require(try JSONSerialization.jsonObject(with: Data(fhir.out.utf8)) as? [String: Any])
        let resources = try #require(bundle["entry"] as? [[String: Any]]).compactMap { $0["resource"] as? [String: Any] }
        let observations = resources.filter { $0["resourceType"] as? String == "Observation" }
        #expect(!observations.isEmpty)
        let entries = try #require(bundle["entry"] as? [[String: Any]])
        let patient = try #require(entries.first { ($0["resource"] as? [String: Any])?["resourceType"] as? String == "Patient" })
        #expect((patient["resource"] as? [String: Any])?["id"] as? String == "P-0042")
        let patientURL = try #require(patient["fullUrl"] as? String)
        #expect(observations.allSatisfy { ($0["subject"] as? [String: Any])?["reference"] as? String == patientURL })

        // Europe/Amsterdam leaves summer time at 03:00 on 2026-10-25: the night before starts at +02:00
        // and ends at +01:00, and that day is 25 hours long.
        let dst = folder.path("dst.db")
        try Self.run(["ingest", Self.captures + "/v2-daylight-saving.btsnoop", "--db", dst, "--tz", "Europe/Amsterdam", "--age", "35"])
        let out = folder.path("omh.jsonl")
        try Self.run(["sync", "--db", dst, "--jsonl", out, "--payload", "omh", "--quiet"])
        var episodes: [[String: String]] = [], days: [[String: String]] = []
        for line in try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n") {
            for point in try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [[String: Any]]) {
                let header = try #require(point["header"] as? [String: Any]), body = try #require(point["body"] as? [String: Any])
                let name = (header["schema_id"] as? [String: Any])?["name"] as? String
                let interval = ((body["effective_time_frame"] as? [String: Any])?["time_interval"] as? [String: String]) ?? [:]
                if name == "sleep-episode" { episodes.append(interval) }
                if name == "heart-rate" { days.append(interval) }
            }
        }
        #expect(episodes.contains(["start_date_time": "2026-10-24T22:52:00+02:00", "end_date_time": "2026-10-25T07:05:00+01:00"]), "\(episodes)")
        #expect(days.contains(["start_date_time": "2026-10-25T00:00:00+02:00", "end_date_time": "2026-10-26T00:00:00+01:00"]), "\(days)")
    }

    func store(_ path: String) throws -> Store { try Store(path: path) }
}
