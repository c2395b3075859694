import BraceletStore
import Foundation
import Testing
@testable import BraceletSync

private func lines(_ path: String) -> [[String: Any]] {
    let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
}

private func statusJSON(_ path: String, _ extra: [String] = []) throws -> [String: Any] {
    let result = try runBracelet(["sync", "--db", path, "--status", "--format", "json"] + extra)
    #expect(result.status == 0, "stderr: \(result.err)")
    return try #require(try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
}

@Test func onceWithTheReceiverDownLeavesEverythingPendingSaysWhyAndDeliversWhenItIsUp() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("s.db")
    let store = try Store(path: path)
    var keys: [String] = []
    for day in 1...4 { for device in ["A", "B"] { keys.append(try enqueue(store, device: device, date: "2024-03-0\(day)", value: day)) } }
    let port = try unusedLocalPort()
    let url = "http://127.0.0.1:\(port)/in"
    let fast = ["--base-delay", "0.001", "--max-delay", "0.001"]
    let down = try runBracelet(["sync", "--db", path, "--webhook", url, "--secret", "k", "--once"] + fast)
    #expect(down.status == 75)
    // The first refused connection ends the pass (the receiver is down for every entry): one head
    // failed, the other was not tried.
    #expect(down.err.contains("8 entries still pending (nothing given up): "), "stderr: \(down.err)")
    #expect(down.err.contains("1 × network error talking to \(url): connection refused"), "stderr: \(down.err)")
    #expect(down.err.contains("1 × not tried yet"), "stderr: \(down.err)")
    #expect(down.err.contains("6 wait behind those in their device's order"))
    #expect(try store.outboxCounts() == OutboxCounts(pending: 8, delivered: 0, dead: 0))
    // The next attempt is a head's: the untried head's, due since it was made (never earlier than
    // the oldest entry), not one of the entries waiting behind the heads.
    let status = try statusJSON(path)
    let oldest = try #require(status["oldest_pending_created_at"] as? String)
    let heads = try store.pendingOutboxHeads()
    #expect(try #require(status["next_attempt_at"] as? String) >= oldest)
    #expect(heads.map(\.nextAttemptAt).min() == heads.first { $0.lastError == nil }?.nextAttemptAt)
    let counts = Counter()
    let server = try TestHTTPServer(port: port) { request, _ in
        counts.add(request.headers["idempotency-key"] ?? "") == 1 ? .respond(status: 200, body: "") : .respond(status: 409, body: "")
    }
    defer { server.stop() }
    let up = try runBracelet(["sync", "--db", path, "--webhook", url, "--secret", "k", "--once"] + fast)
    #expect(up.status == 0, "stderr: \(up.err)")
    #expect(try store.outboxCounts() == OutboxCounts(pending: 0, delivered: 8, dead: 0))
    #expect(counts.perKey == Dictionary(uniqueKeysWithValues: keys.map { ($0, 1) }))
}

@Test func aWrongSecretPausesTheSinkLoudlyAndKillsNoEntry() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("s.db")
    let store = try Store(path: path)
    for day in 1...3 { try enqueue(store, device: "A", date: "2024-03-0\(day)", value: day) }
    let server = try TestHTTPServer { request, _ in
        let expected = "sha256=" + HMACSHA256.hex(key: Array("right".utf8), message: Array(request.body))
        return request.headers["x-bracelet-signature"] == expected ? .respond(status: 200, body: "") : .respond(status: 401, body: "bad signature")
    }
    defer { server.stop() }
    let wrong = try runBracelet(["sync", "--db", path, "--webhook", server.url, "--secret", "wrong"])
    #expect(wrong.status == 78)
    #expect(wrong.err.contains("PAUSED: webhook \(server.url) cannot take entries: HTTP 401 from \(server.url): bad signature (check the secret"),
            "stderr: \(wrong.err)")
    #expect(server.requests.count == 1, "paused at the first 401, not one per entry")
    #expect(try store.outboxCounts() == OutboxCounts(pending: 3, delivered: 0, dead: 0))
    let status = try statusJSON(path)
    #expect((status["paused_reason"] as? String)?.hasPrefix("HTTP 401") == true)
    #expect((status["last_failure"] as? [String: Any])?["outcome"] as? String == "configuration_failure")
    #expect(status["last_success_at"] is NSNull)
    let right = try runBracelet(["sync", "--db", path, "--webhook", server.url, "--secret", "right"])
    #expect(right.status == 0, "stderr: \(right.err)")
    #expect(try store.outboxCounts() == OutboxCounts(pending: 0, delivered: 3, dead: 0))
    #expect(try statusJSON(path)["paused_reason"] is NSNull)
}

@Test func deadLettersAreRequeuedAllByKeyOrByDateRange() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("s.db")
    let store = try Store(path: path)
    let keys = try (1...4).map { try enqueue(store, device: "D\($0)", date: "2024-03-0\($0)", value: $0) }
    let server = try TestHTTPServer { _, _ in .respond(status: 422, body: "schema v9 unknown") }
    let refused = try runBracelet(["sync", "--db", path, "--webhook", server.url, "--secret", "k", "--quiet"])
    server.stop()
    #expect(refused.status == 3)
    #expect(try store.outboxEntries(state: .dead).map(\.lastError) == Array(repeating: "HTTP 422 from \(server.url): schema v9 unknown", count: 4))
    let one = try runBracelet(["sync", "--db", path, "--requeue-dead", "--key", keys[0]])
    #expect(one.status == 0)
    #expect(one.err.contains("1 dead entries are pending again"))
    let range = try runBracelet(["sync", "--db", path, "--requeue-dead", "--from", "2024-03-02", "--to", "2024-03-03"])
    #expect(range.err.contains("2 dead entries are pending again"))
    #expect(try store.outboxEntries(state: .pending).map(\.key) == Array(keys.prefix(3)))
    let pending = try store.outboxEntries(state: .pending)
    #expect(pending.allSatisfy { $0.attempts == 0 && $0.lastError == nil })
    #expect(try runBracelet(["sync", "--db", path, "--requeue-dead"]).err.contains("1 dead entries are pending again"))
    let badDate = try runBracelet(["sync", "--db", path, "--requeue-dead", "--from", "2024-02-30"])
    #expect(badDate.status != 0)
    #expect(badDate.err.contains("\"2024-02-30\" is not a calendar date"))
}

@Test func resendSendsADateRangeAgainWithTheSameKeysAndBytes() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("s.db")
    let store = try Store(path: path)
    let keys = try (1...5).map { try enqueue(store, device: "A", date: "2024-03-0\($0)", value: $0) }
    let output = folder.path("out.jsonl")
    #expect(try runBracelet(["sync", "--db", path, "--jsonl", output, "--quiet"]).status == 0)
    let again = try runBracelet(["sync", "--db", path, "--jsonl", output, "--resend", "--from", "2024-03-02", "--to", "2024-03-03"])
    #expect(again.status == 0, "stderr: \(again.err)")
    #expect(again.err.contains("2 delivered entries of 2024-03-02..2024-03-03 are pending again (same keys)"))
    let text = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n").map(String.init)
    #expect(lines(output).compactMap { $0["key"] as? String } == keys + [keys[1], keys[2]])
    #expect(text[5] == text[1] && text[6] == text[2], "the same bytes as the first time")
    #expect(try store.outboxCounts() == OutboxCounts(pending: 0, delivered: 5, dead: 0))
}

@Test func statusGivesTheOldestPendingAgeAndTheLastSuccess() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("s.db")
    let twoHoursAgo = (Store.systemMilliseconds() / 1000 - 7_200) * 1000
    let store = try Store(path: path, now: { twoHoursAgo })
    try enqueue(store, device: "A", date: "2024-03-01", value: 1)
    try enqueue(store, device: "A", date: "2024-03-02", value: 1)
    try enqueueSleep(store, device: "A", date: "2024-03-02", start: 1_709_330_000)
    let delivered = try #require(try store.outboxEntries().first)
    let successAt = twoHoursAgo + 5_400_000
    try store.recordDelivered(entryID: delivered.id, sink: "webhook http://x/in", outcome: "delivered", httpStatus: 200, at: successAt)
    let status = try statusJSON(path)
    #expect(status["pending"] as? Int == 2)
    #expect(status["delivered"] as? Int == 1)
    #expect(status["dead"] as? Int == 0)
    let age = try #require(status["oldest_pending_age_seconds"] as? Double)
    #expect(age >= 7_200 && age < 7_260, "age \(age)")
    #expect(status["last_success_at"] as? String == UTCTimeText.iso(successAt))
    #expect(status["pending_by_kind"] as? [String: Int] == ["daily": 1, "sleep": 1])
    let sleepOnly = try statusJSON(path, ["--kinds", "sleep"])
    #expect(sleepOnly["pending"] as? Int == 1)
    #expect(sleepOnly["delivered"] as? Int == 0)
    let table = try runBracelet(["sync", "--db", path, "--status"])
    #expect(table.out.contains("pending    2 (oldest written 2 h 0 min ago) [daily 1, sleep 1]"), "\(table.out)")
    #expect(table.out.contains("last success  \(UTCTimeText.iso(successAt)) (30 min"), "\(table.out)")
}

/// `2024-03-01T12:00:00.000Z` for Unix ms, as the status prints it.
enum UTCTimeText {
    static func iso(_ ms: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date(timeIntervalSince1970: Double(ms) / 1000))
    }
}

@Test func aParticipantIdIsStoredWithTheDeviceAndSentWithEveryDelivery() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("s.db")
    let store = try Store(path: path)
    let before = try enqueue(store, device: "A", date: "2024-03-01", value: 1)
    try enqueue(store, device: "B", date: "2024-03-01", value: 1)
    let hashBefore = try #require(try store.dailySummary(device: "A", localDate: "2024-03-01", kind: "daily")).contentHash
    let set = try runBracelet(["sync", "--db", path, "--set-user", "P-0042", "--device", "A"])
    #expect(set.status == 0, "stderr: \(set.err)")
    #expect(set.err.contains("device A is assigned to user P-0042; 1 pending entries now carry it"))
    #expect(try store.user(ofDevice: "A") == "P-0042")
    let seenBefore = try #require(try store.devices().first { $0.serial == "A" }).lastSeenAt
    // A bracelet handed out before any data: it is added, with the participant, and no data.
    #expect(try runBracelet(["sync", "--db", path, "--set-user", "P-0043", "--device", "C"]).status == 0)
    #expect(try store.devices().map(\.serial) == ["A", "B", "C"])
    #expect(try store.user(ofDevice: "C") == "P-0043")
    #expect(try store.user(ofDevice: "B") == nil)
    _ = try runBracelet(["sync", "--db", path, "--set-user", "P-0042", "--device", "A"])
    #expect(try store.devices().first { $0.serial == "A" }?.lastSeenAt == seenBefore, "assigning is not seeing data")
    let after = try enqueue(store, device: "A", date: "2024-03-02", value: 1)
    #expect(try store.dailySummary(device: "A", localDate: "2024-03-01", kind: "daily")?.contentHash == hashBefore)
    let server = try TestHTTPServer { _, _ in .respond(status: 200, body: "") }
    defer { server.stop() }
    #expect(try runBracelet(["sync", "--db", path, "--webhook", server.url, "--secret", "k", "--quiet"]).status == 0)
    var users: [String: String] = [:]
    for request in server.requests {
        let body = try #require(try JSONSerialization.jsonObject(with: request.decodedBody) as? [String: Any])
        let key = try #require(request.headers["idempotency-key"])
        #expect(request.headers["x-bracelet-signature"] == "sha256=" + HMACSHA256.hex(key: Array("k".utf8), message: Array(request.body)))
        users[key] = (body["user"] as? String) ?? (body["user"] is NSNull ? "null" : "missing")
        #expect(request.headers["x-bracelet-user"] == (key.hasPrefix("A/") ? "P-0042" : nil))
        #expect(body["summary"] as? [String: Int] == ["value": 1])
    }
    #expect(users == [before: "P-0042", after: "P-0042", "B/2024-03-01/daily/v1": "null"])
    // JSON Lines carries it too.
    let output = folder.path("out.jsonl")
    _ = try runBracelet(["sync", "--db", path, "--resend", "--from", "2024-03-02", "--jsonl", output, "--quiet"])
    #expect(lines(output).map { $0["user"] as? String } == ["P-0042"])
    let bad = try runBracelet(["sync", "--db", path, "--set-user", "P 42\"", "--device", "A"])
    #expect(bad.status != 0)
    // The id is quoted as Swift writes a string: the quote inside it escaped.
    #expect(bad.err.contains("user id \"P 42\\\"\" is not valid"), "\(bad.err)")
    #expect(try store.user(ofDevice: "A") == "P-0042")
}

@Test func aKindFilterDeliversOnlyItsKindsAndLeavesTheRestPendingForAnotherSink() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("s.db")
    let store = try Store(path: path)
    let daily1 = try enqueue(store, device: "A", date: "2024-03-01", value: 1)
    let sleep = try enqueueSleep(store, device: "A", date: "2024-03-02", start: 1_709_330_000)
    let daily2 = try enqueue(store, device: "A", date: "2024-03-02", value: 1)
    let sleepFile = folder.path("sleep.jsonl")
    let first = try runBracelet(["sync", "--db", path, "--jsonl", sleepFile, "--kinds", "sleep", "--once"])
    #expect(first.status == 0, "daily entries pending for another sink are not this sink's failures: \(first.err)")
    #expect(lines(sleepFile).compactMap { $0["key"] as? String } == [sleep], "not held back by the earlier daily entry")
    #expect(try store.outboxEntries(state: .pending).map(\.key) == [daily1, daily2])
    // The opening and closing lines count every kind: the daily entries left for another sink are pending.
    #expect(first.err.contains("sync: 1 pending entries of kinds sleep (3 pending in all) -> "), "\(first.err)")
    #expect(first.err.contains("outbox now 0 pending, 1 delivered, 0 dead of kinds sleep; all kinds: 2 pending [daily 2], 1 delivered, 0 dead"),
            "\(first.err)")
    let dailyFile = folder.path("daily.jsonl")
    let second = try runBracelet(["sync", "--db", path, "--jsonl", dailyFile, "--kinds", "daily:daily", "--once"])
    #expect(second.status == 0)
    #expect(lines(dailyFile).compactMap { $0["key"] as? String } == [daily1, daily2])
    #expect(second.err.contains("outbox now 0 pending, 2 delivered, 0 dead of kinds daily:daily; all kinds: 0 pending, 3 delivered, 0 dead"),
            "\(second.err)")
    let typo = try runBracelet(["sync", "--db", path, "--jsonl", dailyFile, "--kinds", "slep", "--once"])
    #expect(typo.status == 64)
    #expect(typo.err.contains("--kinds: \"slep\" is not a kind of outbox entry"), "\(typo.err)")
    let badList = try runBracelet(["sync", "--db", path, "--jsonl", dailyFile, "--kinds", "daily,,x/y"])
    #expect(badList.status == 64)
}

@Test func aSecondSyncWithNothingPendingSaysWhyItsOutputIsEmpty() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("s.db")
    let store = try Store(path: path)
    _ = try (1...3).map { try enqueue(store, device: "A", date: "2024-03-0\($0)", value: $0) }
    #expect(try runBracelet(["sync", "--db", path, "--jsonl", folder.path("first.jsonl"), "--once", "--quiet"]).status == 0)
    let second = try runBracelet(["sync", "--db", path, "--jsonl", folder.path("second.jsonl"), "--once"])
    #expect(second.status == 0)
    #expect(second.err.contains("nothing to deliver: the 3 entries of this database were delivered before"), "stderr: \(second.err)")
    #expect(second.err.contains("--resend --from DATE --to DATE"))
    let quiet = try runBracelet(["sync", "--db", path, "--jsonl", folder.path("third.jsonl"), "--once", "--quiet"])
    #expect(quiet.err.isEmpty, "stderr: \(quiet.err)")
}

/// `--kinds dialy` used to deliver nothing and exit 0: a kind that names nothing is refused before
/// anything is read or sent, with the kinds there are; one that exists but has no entry yet is not.
@Test func aKindThatNamesNothingIsRefusedWithTheKindsThereAre() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("k.db")
    let store = try Store(path: path)
    let daily = try enqueue(store, device: "A", date: "2024-03-01", value: 1)
    _ = try enqueue(store, device: "A", date: "2024-03-01", value: 1, kind: "bpm")  // a kind of an older build
    let out = folder.path("out.jsonl")
    let refused = try runBracelet(["sync", "--db", path, "--jsonl", out, "--once", "--kinds", "daily,dialy"])
    #expect(refused.status == 64)
    #expect(refused.err.contains(#"--kinds: "dialy" is not a kind of outbox entry; the kinds are bpm, daily, event:battery_low, "#), "\(refused.err)")
    #expect(refused.err.contains("sleep (comma-separated, e.g. --kinds daily,sleep)"), "\(refused.err)")
    #expect(!FileManager.default.fileExists(atPath: out), "nothing was delivered")
    #expect(try store.outboxEntries(state: .pending).count == 2)
    let status = try runBracelet(["sync", "--db", path, "--status", "--kinds", "dialy"])
    #expect(status.status == 64)

    let taken = try runBracelet(["sync", "--db", path, "--jsonl", out, "--once", "--kinds", "daily,bpm,event:not_worn,event:link_refused"])
    #expect(taken.status == 0, "\(taken.err)")
    #expect(taken.err.contains(#"no outbox entry has kind "event:not_worn" yet"#), "\(taken.err)")
    #expect(lines(out).compactMap { $0["key"] as? String }.first == daily)
    #expect(try store.outboxEntries(state: .pending).isEmpty)
}
