import BraceletStore
import Foundation
import Testing
@testable import BraceletSync

/// Deliveries per second to the JSON Lines sink (fsync per entry) and to a webhook on 127.0.0.1.
/// Opt-in: `BRACELET_BENCH=1 swift test -c release --filter deliveryThroughput`.
@Test(.enabled(if: ProcessInfo.processInfo.environment["BRACELET_BENCH"] == "1"))
func deliveryThroughput() async throws {
    let count = Int(ProcessInfo.processInfo.environment["BRACELET_BENCH_ENTRIES"] ?? "") ?? 2_000
    for target in ["jsonl", "webhook"] {
        let folder = try TemporaryFolder()
        let store = try Store(path: folder.path("bench.db"))
        for index in 0..<count {
            let date = String(format: "2024-%02d-%02d", index / 28 % 12 + 1, index % 28 + 1)
            _ = try store.upsertDailySummary(device: "D\(index % 4)", localDate: date, kind: "k\(index / 336)",
                                             json: Data(#"{"steps":\#(index),"restingHR":58,"sleepMinutes":431,"hrvMs":48.5}"#.utf8))
        }
        let server = try TestHTTPServer { _, _ in .respond(status: 200, body: "") }
        defer { server.stop() }
        let sink: any OutboxSink = target == "jsonl"
            ? try JSONLinesSink(path: folder.path("out.jsonl"))
            : try WebhookSink(url: server.url, secret: "bench", timeoutSeconds: 10)
        let forwarder = Forwarder(store: store, sink: sink, policy: try RetryPolicy())
        let start = Date()
        let report = try await forwarder.drain()
        let seconds = Date().timeIntervalSince(start)
        #expect(report.delivered == count)
        print(String(format: "%@: %d entries in %.2f s = %.0f deliveries/s (each recorded in SQLite with fsync)",
                     target, count, seconds, Double(count) / seconds))
    }
}
