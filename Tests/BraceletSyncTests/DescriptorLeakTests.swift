import BraceletStore
import Foundation
import Testing

/// The open descriptors of process `pid` (its /proc/PID/fd entries).
private func openDescriptors(_ pid: Int32) -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
}

/// Twenty deliveries by a running `sync --follow` leave its open descriptors where one delivery
/// left them. Each request's deadline timer once kept the request's interrupt pipe (two
/// descriptors) open for the whole --timeout after the answer came: a gateway delivering a backlog
/// held two per request in flight and ran out.
@Test func deliveriesLeaveNoDescriptorBehind() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("s.db")
    let store = try Store(path: path)
    try enqueue(store, device: "A", date: "2024-03-01", value: 1)
    let server = try TestHTTPServer { _, _ in .respond(status: 200, body: "ok") }
    defer { server.stop() }
    let running = try startBracelet(["sync", "--db", path, "--webhook", server.url, "--follow", "--poll", "0.05", "--timeout", "120"],
                                    environment: ["BRACELET_WEBHOOK_SECRET": "k"])
    defer { _ = try? stop(running, deadlineSeconds: 30) }
    let pid = running.process.processIdentifier
    #expect(waitUntil(seconds: 60) { (try? store.outboxCounts().delivered) == 1 }, "the first entry was not delivered: \(running.err)")
    // Settled: the first exchange's thread has ended.
    Thread.sleep(forTimeInterval: 0.5)
    let before = openDescriptors(pid)
    for device in 1...20 { try enqueue(store, device: "D\(device)", date: "2024-03-01", value: device) }
    #expect(waitUntil(seconds: 60) { (try? store.outboxCounts().delivered) == 21 }, "the 20 entries were not delivered: \(running.err)")
    #expect(server.requests.count == 21)
    let settled = waitUntil(seconds: 5) { openDescriptors(pid) <= before + 2 }
    #expect(settled, "\(openDescriptors(pid)) descriptors open after 20 more deliveries, \(before) after the first")
}
