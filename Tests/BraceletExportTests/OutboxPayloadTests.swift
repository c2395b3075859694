import BraceletExport
import BraceletStore
import BraceletSync
import Foundation
import Testing

@Suite struct OutboxPayloadTests {
    func entry(kind: String, summary: String) -> OutboxEntry {
        let payload = #"{"key": "V2TEST01/2026-03-08/x/v1", "kind": "\#(kind)", "summary": \#(summary)}"#
        return OutboxEntry(id: 1, key: "V2TEST01/2026-03-08/x/v1", kind: kind, device: "V2TEST01", localDate: "2026-03-08", version: 1,
                           contentHash: "", payload: Data(payload.utf8), state: .pending, attempts: 0, nextAttemptAt: 0,
                           lastError: nil, createdAt: 0, deliveredAt: nil)
    }

    @Test func aDailyEntryBecomesDataPointsInTheNamedZone() throws {
        let data = try OutboxPayload.render(entry(kind: "daily:daily", summary: Fixture.dayJSON), as: .omh, timeZone: Fixture.newYork)
        let points = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        let names = Set(points.compactMap { (($0["header"] as? [String: Any])?["schema_id"] as? [String: String])?["name"] })
        #expect(names == ["heart-rate", "respiratory-rate", "body-temperature", "step-count"])  // no sleep values without the session
        #expect(String(decoding: data, as: UTF8.self).contains("2026-03-08T03:30:00-04:00"))
    }

    @Test func aSleepEntryUsesTheSessionsOwnOffset() throws {
        let data = try OutboxPayload.render(entry(kind: "sleep_session", summary: Fixture.sessionJSON), as: .fhir, options: ExportOptions(user: "alice"))
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("\"93832-4\""))
        #expect(text.contains("2026-03-08T07:00:00-04:00"))  // the stop, at the session's recorded offset
        // The session's bundle holds the Patient its subject refers to.
        let bundle = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let entries = bundle["entry"] as? [[String: Any]] ?? []
        let patient = try #require(entries.first { ($0["resource"] as? [String: Any])?["resourceType"] as? String == "Patient" })
        let sleep = try #require(entries.first { ($0["resource"] as? [String: Any])?["resourceType"] as? String == "Observation" })
        #expect(((sleep["resource"] as? [String: Any])?["subject"] as? [String: String])?["reference"] == patient["fullUrl"] as? String)
        #expect((patient["resource"] as? [String: Any])?["id"] as? String == "alice")
    }

    @Test func anUnknownKindIsRefusedWithWhatToDo() {
        #expect(throws: ExportError.self) { try OutboxPayload.render(entry(kind: "daily:heart_rate", summary: "{}"), as: .omh) }
    }
}

/// A sink that keeps what it is given (a test peer for the wrapper).
final class KeepingSink: OutboxSink, @unchecked Sendable {
    var bodies: [Data] = []
    var name: String { "keeping" }
    func deliver(_ entry: OutboxEntry) async throws -> DeliveryOutcome {
        bodies.append(entry.payload)
        return .delivered(httpStatus: nil)
    }
}

@Suite struct ExportingSinkTests {
    @Test func deliversTheEntryAsOneLineOfTheFormat() async throws {
        let inner = KeepingSink()
        let sink = try ExportingSink(inner: inner, format: .ieee1752)
        let entry = OutboxPayloadTests().entry(kind: "sleep_session", summary: Fixture.sessionJSON)
        let outcome = try await sink.deliver(entry)
        #expect(outcome == .delivered(httpStatus: nil))
        let body = String(decoding: try #require(inner.bodies.first), as: UTF8.self)
        #expect(!body.contains("\n"))
        #expect(body.contains("\"sleep-stage-summary\""))
        #expect(sink.name == "keeping as ieee1752")
    }

    @Test func anEntryThatCannotBeRenderedFailsPermanently() async throws {
        let inner = KeepingSink()
        let sink = try ExportingSink(inner: inner, format: .omh)
        let outcome = try await sink.deliver(OutboxPayloadTests().entry(kind: "daily:heart_rate", summary: "{}"))
        guard case .permanentFailure = outcome else { Issue.record("expected a permanent failure, got \(outcome)"); return }
        #expect(inner.bodies.isEmpty)
        #expect(throws: ExportError.self) { try ExportingSink(inner: inner, format: .csv) }
    }
}
