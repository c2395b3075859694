import BraceletDecoder
import Foundation
import Testing
import BraceletIngest
import BraceletStore
import BraceletSummaries
import BraceletVitality

/// What the store wrote before the canonical writer: JSONEncoder, then JSONSerialization with sorted
/// keys. Every content hash stored and every payload delivered so far came from these bytes.
private enum FoundationRoundTrip {
    static func canonical<T: Encodable>(_ value: T) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try serialize(JSONSerialization.jsonObject(with: encoder.encode(value), options: [.fragmentsAllowed]))
    }

    static func serialize(_ object: Any) throws -> [UInt8] {
        [UInt8](try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed]))
    }
}

@Test(arguments: [("v1-day.btsnoop", "Europe/Amsterdam"), ("v2-three-days.btsnoop", "America/New_York"),
                  ("v2-daylight-saving.btsnoop", "Europe/Amsterdam"), ("v1-faulty-transfer.btsnoop", "UTC")])
func summariesOfTheBundledCapturesHaveTheBytesTheyHadBefore(capture: String, zone: String) throws {
    let replayed = try Bundled.replay(capture)
    let configuration = try SummaryConfiguration(age: 35, timeZone: try SummaryConfiguration.timeZone(named: zone))
    var engine = SummaryEngine(configuration: configuration)
    _ = engine.add(slots: replayed.metricsFiles.flatMap(\.slots), beats: replayed.beatsFiles.flatMap(\.beats), now: 4_000_000_000)
    #expect(!engine.days.isEmpty)
    for day in engine.days {
        let bytes = try CanonicalJSON.bytes(of: day, what: day.date)
        #expect(bytes == (try FoundationRoundTrip.canonical(day)), "daily summary \(day.date) of \(capture)")
    }
    for session in engine.sleepSessions {
        #expect(try CanonicalJSON.bytes(of: session, what: "session") == (try FoundationRoundTrip.canonical(session)))
    }
}

@Test func outboxPayloadsOfAnIngestedCaptureHaveTheBytesTheyHadBefore() throws {
    let path = Bundled.temporaryDatabase()
    defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
    let store = try Store(path: path)
    let replayed = try Bundled.replay("v2-three-days.btsnoop")
    let zone = try SummaryConfiguration.timeZone(named: "America/New_York")
    _ = try IngestPipeline(store: store, configuration: try SummaryConfiguration(age: 35, timeZone: zone), age: 35)
        .ingest(VerifiedFile.files(of: replayed))
    let entries = try store.outboxEntries()
    #expect(entries.count > 3)
    for entry in entries {
        // The envelope as the store built it before: a dictionary around the parsed summary.
        let payload = try #require(try JSONSerialization.jsonObject(with: entry.payload) as? [String: Any])
        let summary = try #require(payload["summary"])
        var envelope: [String: Any] = ["key": entry.key, "kind": entry.kind, "device": entry.device, "local_date": entry.localDate,
                                       "version": entry.version, "content_hash": entry.contentHash, "summary": summary]
        for name in ["start", "stop"] { if let value = payload[name] { envelope[name] = value } }
        #expect([UInt8](entry.payload) == (try FoundationRoundTrip.serialize(envelope)), "\(entry.key)")
        // The content hash is the hash of the summary's canonical bytes inside the envelope.
        #expect(entry.contentHash == SHA256.hex(try FoundationRoundTrip.serialize(summary)))
    }
    // Vitality metrics (the metrics, their age and the day's coverage) in the form the Foundation
    // round trip writes, and still readable as metrics.
    let rows = try store.vitalityMetrics(device: "V23DAY01", fromDate: "2000-01-01", toDate: "2100-01-01")
    #expect(rows.count >= 3)
    for row in rows {
        _ = try StoredVitalityMetrics.decode(localDate: row.localDate, json: row.json, age: 35)
        let old = try FoundationRoundTrip.serialize(JSONSerialization.jsonObject(with: row.json))
        #expect([UInt8](row.json) == old, "vitality metrics of \(row.localDate)")
    }
}

/// The per-slot records write their canonical bytes themselves (no tree): every type, with each
/// field present (whole, fractional, negative zero, long and large numbers) and missing, has the bytes
/// of the Foundation round trip, alone and inside a day.
@Test func slotRecordsWrittenDirectlyHaveTheBytesOfTheRoundTrip() throws {
    func check<T: Encodable>(_ records: [T]) throws {
        #expect(try CanonicalJSON.bytes(of: records, what: "slots") == (try FoundationRoundTrip.canonical(records)), "\(T.self)")
    }
    try check([BPMSlot(intervalDate: 1_781_474_400, bpm: 58), BPMSlot(intervalDate: -60, bpm: 0)])
    try check([BreathSlot(intervalDate: 1_781_474_400, brpm: 14, brpmQ: 3)])
    try check([StepsSlot(intervalDate: 1, stepCount: 120, energyExp: 3.0, speed: 1.2345678901234567, activityType: 4, distance: 88),
               StepsSlot(intervalDate: 2, stepCount: nil, energyExp: nil, speed: nil, activityType: nil, distance: nil),
               StepsSlot(intervalDate: 3, stepCount: 0, energyExp: -0.0, speed: 1e16, activityType: 0, distance: -5)])
    try check([ActivitySlot(intervalDate: 1, steps: 5, distance: 3, calories: 0.35),
               ActivitySlot(intervalDate: 2, steps: nil, distance: nil, calories: nil)])
    try check([BodyTempSlot(intervalDate: 1, temp: 33.25), BodyTempSlot(intervalDate: 2, temp: 100), BodyTempSlot(intervalDate: 3, temp: -12.5)])
    try check([CoreBodyTemperatureSlot(intervalDate: 1, coreBodyTemperature: 37.123456789)])
    try check([Spo2Slot(intervalDate: 1, spo2: 97)])
    try check([EmographySlot(date: 1, stressLevelSkinConductance: 0.3), EmographySlot(date: 2, stressLevelSkinConductance: 0.1 + 0.2)])
    try check([SleepSlot(date: 1, intervalSeconds: 60, sleepType: 3)])
    try check([BPMSlot]())
    // Below 1e-4 the writer's exponent form (the one known difference from the round trip), as for any Double.
    #expect(String(decoding: try CanonicalJSON.bytes(of: [EmographySlot(date: 1, stressLevelSkinConductance: 5.4e-08)], what: "slots"), as: UTF8.self)
        == #"[{"date":1,"stressLevelSkinConductance":5.4e-08}]"#)
    #expect(String(decoding: try CanonicalJSON.bytes(of: [5.4e-08], what: "numbers"), as: UTF8.self) == "[5.4e-08]")

    let replayed = try Bundled.replay("v2-three-days.btsnoop")
    var engine = SummaryEngine(configuration: try SummaryConfiguration(age: 35, timeZone: try SummaryConfiguration.timeZone(named: "UTC")))
    _ = engine.add(slots: replayed.metricsFiles.flatMap(\.slots), beats: replayed.beatsFiles.flatMap(\.beats), now: 4_000_000_000)
    var day = try #require(engine.days.first { !$0.steps.slots.isEmpty && !$0.activity.slots.isEmpty })
    day.steps.slots[0] = StepsSlot(intervalDate: day.dayStart, stepCount: nil, energyExp: nil, speed: nil, activityType: nil, distance: nil)
    day.activity.slots[0] = ActivitySlot(intervalDate: day.dayStart, steps: nil, distance: nil, calories: nil)
    day.bodyTemp.slots = []
    #expect(try CanonicalJSON.bytes(of: day, what: day.date) == (try FoundationRoundTrip.canonical(day)))
}

@Test func aNumberJSONCannotHoldInASlotRecordIsAnErrorThatSaysWhere() throws {
    let replayed = try Bundled.replay("v2-three-days.btsnoop")
    var engine = SummaryEngine(configuration: try SummaryConfiguration(age: 35, timeZone: try SummaryConfiguration.timeZone(named: "UTC")))
    _ = engine.add(slots: replayed.metricsFiles.flatMap(\.slots), beats: [], now: 4_000_000_000)
    var day = try #require(engine.days.first)
    day.bodyTemp.slots.append(BodyTempSlot(intervalDate: day.dayEnd - 60, temp: .nan))
    #expect {
        _ = try CanonicalJSON.bytes(of: day, what: day.date)
    } throws: { error in
        "\(error)".contains("bodyTemp.slots.temp") && "\(error)".contains("nil")
    }
}

/// A summary as the store keeps it, pinned: the bytes of the 2026-06-17 summary of the bundled
/// three-day capture (America/New_York, age 35), its content hash and its outbox payload. Receivers
/// deduplicate on these hashes, so no change of the writer or the pipeline may move them.
@Test func theStoredSummaryOfAKnownDayIsPinned() throws {
    let path = Bundled.temporaryDatabase()
    defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
    let store = try Store(path: path)
    let zone = try SummaryConfiguration.timeZone(named: "America/New_York")
    _ = try IngestPipeline(store: store, configuration: try SummaryConfiguration(age: 35, timeZone: zone), age: 35)
        .ingest(VerifiedFile.files(of: try Bundled.replay("v2-three-days.btsnoop")))
    let day = try #require(try store.dailySummary(device: "V23DAY01", localDate: "2026-06-17", kind: "daily"))
    #expect(day.json.count == 628_728)
    #expect(day.contentHash == "fd9fab45eb6292a17958ddc54d482ef98108393db73837a94da6c23642925f33")
    #expect(SHA256.hex([UInt8](day.json)) == day.contentHash)
    #expect(day.json.starts(with: Data(#"{"activity":{"calories":817.43,"distance":11991,"slots":[{"calories":0,"distance":0,"intervalDate":1781668800,"steps":0}"#.utf8)))
    let entry = try #require(try store.outboxEntries().first { $0.key == "V23DAY01/2026-06-17/daily/v1" })
    #expect(entry.payload.count == 628_938)
    #expect(SHA256.hex([UInt8](entry.payload)) == "d197570b25fe21b73e344c67e2a35b9ba34405f437f1948ec57a066d2e26c12f")
    let session = try #require(try store.sleepSessions(device: "V23DAY01", localDate: "2026-06-17").first { $0.start == 1_781_666_040 })
    #expect(session.json.count == 26_066)
    #expect(session.contentHash == "7af724a4718b954a941b722757b313c1fdbf3807c0836ee8403421595d18fd4b")
}
