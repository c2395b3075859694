import Foundation
import Testing
@testable import BraceletStore

/// The delivery check reads the summary inside each pending payload by the layout the outbox
/// writes it in (hash over the bytes as stored, header parsed alone) instead of parsing the whole
/// document: it must accept exactly what the full parse accepts.
@Suite struct EnvelopeCheckTests {
    /// A store with one day summary and one sleep session pending, and their payloads.
    func pendingPayloads() throws -> (Store, [OutboxEntry], URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bracelet-envelope-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let store = try Store(path: folder.appendingPathComponent("g.db").path)
        _ = try store.upsertDailySummary(device: "SN1", localDate: "2026-03-01", kind: "daily",
                                         json: Data(#"{"bpm":{"slots":[{"bpm":61}],"version":"x"},"summary":",\"summary\":"}"#.utf8))
        _ = try store.upsertSleepSession(device: "SN1", start: 1_772_323_200, stop: 1_772_352_000, localDate: "2026-03-01",
                                         json: Data(#"{"recordDate":"2026-03-01","totalSleepDuration":25200}"#.utf8))
        return (store, try store.outboxEntries(state: .pending), folder)
    }

    func setPayload(_ store: Store, id: Int64, _ payload: String) throws {
        try store.locked { db in
            let update = try db.prepare("UPDATE outbox SET payload = ?2 WHERE id = ?1")
            update.bind(id, at: 1)
            update.bind(payload, at: 2)
            try update.run()
        }
    }

    @Test func intactPayloadsPassByTheirLayoutAlone() throws {
        let (store, entries, folder) = try pendingPayloads()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(entries.count == 2)
        for entry in entries {
            let ok = entry.payload.withUnsafeBytes {
                Store.envelopeMatches(key: entry.key, hash: entry.contentHash, payload: $0.bindMemory(to: UInt8.self))
            }
            #expect(ok, "\(entry.key)")
        }
        try store.requireIntactForDelivery()
    }

    @Test func aChangedSummaryHeaderOrTailIsRefused() throws {
        let (store, entries, folder) = try pendingPayloads()
        defer { try? FileManager.default.removeItem(at: folder) }
        let day = try #require(entries.first { $0.kind == "daily:daily" })
        let text = String(decoding: day.payload, as: UTF8.self)
        let damaged = [
            text.replacingOccurrences(of: #""bpm":61"#, with: #""bpm":71"#),        // inside the summary
            text.replacingOccurrences(of: "SN1/2026-03-01", with: "SN2/2026-03-01"), // the envelope's key
            text.replacingOccurrences(of: day.contentHash, with: String(day.contentHash.reversed())), // its hash
        ]
        for payload in damaged {
            #expect(payload != text)
            try setPayload(store, id: day.id, payload)
            #expect(throws: StoreError.self, "\(payload.prefix(80))") { try store.requireIntactForDelivery() }
        }
    }
}
