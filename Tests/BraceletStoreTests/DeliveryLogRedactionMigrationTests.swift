import Foundation
import Testing
@testable import BraceletStore

/// What a schema-15 file kept from runs that printed URLs whole (a webhook's `user:password@` and
/// `?token=`, in the sink's name and in errors) is redacted by the migration that follows, and
/// nothing else changes.
@Suite struct DeliveryLogRedactionMigrationTests {
    @Test func aSchema15FileLosesTheCredentialsItsDeliveryLogKept() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("old.db")
        let secretURL = "https://ops:pa55word@hooks.example.org/in?token=t0ps3cret&sslmode=require"
        do {
            let old = try Store(path: path, migratingTo: 15)
            _ = try old.upsertDailySummary(device: "SN1", localDate: "2024-03-01", kind: "daily", json: Data(#"{"v":1}"#.utf8))
            let entry = try #require(try old.outboxEntries().first)
            try old.recordFailedAttempt(entryID: entry.id, sink: "webhook \(secretURL)", outcome: "transient_failure",
                                        error: "HTTP 500 from \(secretURL): boom", httpStatus: 500, at: 1, retryAt: 2)
            try old.recordFailedAttempt(entryID: entry.id, sink: "jsonl /var/lib/out.jsonl", outcome: "transient_failure",
                                        error: "disk full", httpStatus: nil, at: 3, retryAt: 4)
        }
        let store = try Store(path: path)
        #expect(try store.schemaVersion() == Migrations.latestVersion)
        let shown = "https://ops:***@hooks.example.org/in?token=***&sslmode=require"
        let entry = try #require(try store.outboxEntries().first)
        let log = try store.deliveryLog(entryID: entry.id)
        #expect(log.map(\.sink) == ["webhook \(shown)", "jsonl /var/lib/out.jsonl"])
        #expect(log.map(\.error) == ["HTTP 500 from \(shown): boom", "disk full"])
        #expect(entry.lastError == "disk full")
    }
}
