import BraceletStore
import Foundation
import Testing
@testable import BraceletSync

@Test func statusAsJSONCountsStatesAndGivesDeadReasons() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("s.db")
    let store = try Store(path: path)
    try enqueue(store, device: "A", date: "2024-03-01", value: 1)
    try enqueue(store, device: "B", date: "2024-03-01", value: 1)
    try enqueue(store, device: "C", date: "2024-03-01", value: 1)
    let entries = try store.outboxEntries()
    try store.recordDelivered(entryID: entries[0].id, sink: "t", outcome: "delivered", httpStatus: 200, at: 1)
    try store.recordFailedAttempt(entryID: entries[1].id, sink: "t", outcome: "permanent_failure", error: "HTTP 422: schema v9 unknown",
                                  httpStatus: 422, at: 2, retryAt: nil)
    let result = try runBracelet(["sync", "--db", path, "--status", "--format", "json"])
    #expect(result.status == 0, "stderr: \(result.err)")
    let object = try #require(try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
    #expect(object["pending"] as? Int == 1)
    #expect(object["delivered"] as? Int == 1)
    #expect(object["dead"] as? Int == 1)
    let dead = try #require(object["dead_entries"] as? [[String: Any]])
    #expect(dead.count == 1)
    #expect(dead.first?["key"] as? String == "B/2024-03-01/daily/v1")
    #expect(dead.first?["reason"] as? String == "HTTP 422: schema v9 unknown")
    let table = try runBracelet(["sync", "--db", path, "--status"])
    #expect(table.out.contains("dead       1"))
    #expect(table.out.contains("B/2024-03-01/daily/v1 after 1 attempts: HTTP 422: schema v9 unknown"))
}

@Test func syncToJSONLinesDeliversEverythingAndReportsProgressOnStderr() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("s.db")
    let store = try Store(path: path)
    for day in 1...5 { try enqueue(store, device: "A", date: "2024-03-0\(day)", value: day) }
    let output = folder.path("out.jsonl")
    let result = try runBracelet(["sync", "--db", path, "--jsonl", output, "--once"])
    #expect(result.status == 0, "stderr: \(result.err)")
    #expect(result.out.isEmpty)
    #expect(result.err.contains("delivered A/2024-03-05/daily/v1 (attempt 1)"))
    #expect(try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n").count == 5)
    #expect(try store.outboxCounts() == OutboxCounts(pending: 0, delivered: 5, dead: 0))
    // Nothing left: a second run sends nothing.
    _ = try runBracelet(["sync", "--db", path, "--jsonl", output, "--once"])
    #expect(try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n").count == 5)
}

@Test func deadLettersMakeSyncExitWith3() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("s.db")
    let store = try Store(path: path)
    try enqueue(store, device: "A", date: "2024-03-01", value: 1)
    let server = try TestHTTPServer { _, _ in .respond(status: 422, body: "unknown field") }
    defer { server.stop() }
    let result = try runBracelet(["sync", "--db", path, "--webhook", server.url, "--secret", "k", "--once"])
    #expect(result.status == 3)
    #expect(result.err.contains("DEAD A/2024-03-01/daily/v1 after attempt 1: HTTP 422"))
    #expect(try store.outboxCounts().dead == 1)
}

@Test func badCommandLinesAndBadDatabasesGiveClearErrors() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("s.db")
    _ = try Store(path: path)
    let noSecret = try runBracelet(["sync", "--db", path, "--webhook", "http://127.0.0.1:9/x"])
    #expect(noSecret.status == 64)
    #expect(noSecret.err.contains("--webhook needs its secret"))
    let noSink = try runBracelet(["sync", "--db", path])
    #expect(noSink.status == 64)
    #expect(noSink.err.contains("say where to deliver"))
    let both = try runBracelet(["sync", "--db", path, "--jsonl", "x", "--webhook", "http://a/b", "--secret", "k"])
    #expect(both.err.contains("exclude each other"))
    let missing = try runBracelet(["sync", "--db", folder.path("nope.db"), "--status"])
    #expect(missing.status != 0)
    #expect(missing.err.contains("no database at"))
    #expect(!FileManager.default.fileExists(atPath: folder.path("nope.db")), "status must not create a database")
    let garbage = folder.path("garbage.db")
    try Data(repeating: 0x42, count: 4096).write(to: URL(fileURLWithPath: garbage))
    let corrupt = try runBracelet(["sync", "--db", garbage, "--status"])
    #expect(corrupt.status != 0)
    #expect(corrupt.err.contains("is not a bracelet database"))
    let badURL = try runBracelet(["sync", "--db", path, "--webhook", "ftp://x/y", "--secret", "k"])
    #expect(badURL.err.contains("not an absolute http:// or https:// URL"))
}

@Test func onlyOneForwarderPerDatabase() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("s.db")
    let store = try Store(path: path)
    try enqueue(store, device: "A", date: "2024-03-01", value: 1)
    do {
        let held = try ForwarderLock(databasePath: path)
        #expect(throws: SyncError.anotherForwarderRunning(lockPath: path + "-sync.lock")) { try ForwarderLock(databasePath: path) }
        let blocked = try runBracelet(["sync", "--db", path, "--jsonl", folder.path("o.jsonl")])
        #expect(blocked.status != 0)
        #expect(blocked.err.contains("another bracelet sync is already forwarding this database"))
        withExtendedLifetime(held) {}
    }
    // Released: the next one may take it.
    _ = try ForwarderLock(databasePath: path)
    #expect(try runBracelet(["sync", "--db", path, "--jsonl", folder.path("o.jsonl")]).status == 0)
    #expect(try store.outboxCounts().delivered == 1)
}
