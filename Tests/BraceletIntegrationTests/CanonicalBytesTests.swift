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
