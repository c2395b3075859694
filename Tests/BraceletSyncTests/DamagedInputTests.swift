import BraceletStore
import Foundation
import Testing
@testable import BraceletSync
#if canImport(Glibc)
import Glibc
#endif

/// Option values that used to trap (a Double converted to an integer out of range) give an error
/// that names the option and its range, exit 64.
@Test func extremeOptionValuesAreClearErrorsNeverTraps() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("e.db")
    try Data().write(to: URL(fileURLWithPath: path))
    let output = folder.path("o.jsonl")
    let cases: [([String], String)] = [
        (["--jsonl", output, "--base-delay", "1", "--max-delay", "inf"], "--max-delay inf is out of range: give a number of seconds from 0.001 to 86400"),
        (["--jsonl", output, "--base-delay", "1e16", "--max-delay", "1e16"], "--base-delay 1e+16 is out of range"),
        (["--jsonl", output, "--follow", "--poll", "1e300"], "--poll 1e+300 is out of range"),
        (["--webhook", "http://127.0.0.1:1/x", "--secret", "s", "--timeout", "inf"], "--timeout inf is out of range: give a number of seconds from 0.001 to 3600"),
        (["--jsonl", output, "--base-delay", "nan"], "--base-delay nan is out of range"),
        (["--jsonl", output, "--max-attempts", "1"], "--max-attempts is gone"),
    ]
    for (arguments, message) in cases {
        let result = try runBracelet(["sync", "--db", path] + arguments)
        #expect(result.status == 64, "\(arguments): \(result.err)")
        #expect(result.err.contains(message), "\(arguments): \(result.err)")
    }
    #expect(!FileManager.default.fileExists(atPath: output))
}

/// A database whose outbox row says something other than pending while its index still lists it as
/// pending (what two damaged pages did): sync must stop with a clear error, not send it forever.
@Test func aDamagedOutboxIsAClearErrorNotAnEndlessResend() async throws {
    let folder = try TemporaryFolder()
    let path = folder.path("h.db")
    do {
        let store = try Store(path: path)
        for day in 1...3 { try enqueue(store, device: "A", date: "2024-03-0\(day)", value: day) }
        let raw = try Database(path: path)
        try raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }
    // The state text follows the payload's closing brace in the row; the index (device, id) holds
    // no state, so after this edit the index lists a row whose state is no longer 'pending'.
    var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
    let range = try #require(bytes.range(of: Data("}pending".utf8)))
    bytes.replaceSubrange(range, with: Data("}pendinX".utf8))
    try writeAsDiskDamage(bytes, to: path)

    let output = folder.path("h.jsonl")
    let result = try runBracelet(["sync", "--db", path, "--jsonl", output, "--once"])
    #expect(result.status == 1)
    // The check at open (before any delivery) names the damage and what to run.
    #expect(result.err.contains("database \(path) is corrupt (page "), "\(result.err)")  // the page checksum finds the edit first
    #expect(result.err.contains("bracelet db check --db \(path)"), "\(result.err)")
    #expect((try? Data(contentsOf: URL(fileURLWithPath: output)))?.isEmpty ?? true, "nothing was sent")

    // Without the check at the start, the forwarder itself refuses the row instead of guessing.
    let store = try Store(path: path)
    let sink = ScriptedSink()
    let forwarder = Forwarder(store: store, sink: sink, policy: try RetryPolicy(), clock: ManualClock(start: Store.systemMilliseconds()))
    await #expect(throws: StoreError.self) { try await forwarder.drain() }
    // Without the check, an index may still say pending for the damaged row; it can go out once,
    // and then recording it fails (its row is not pending): never a second time.
    #expect(sink.attempts.count <= 3)
    #expect(Set(sink.attempts).count == sink.attempts.count)
}

/// A target that cannot be written is refused when it is opened, and a write error that waiting
/// cannot fix pauses the sink instead of being retried as if transient.
@Test func aJSONLinesTargetThatCannotBeWrittenIsNotRetriedAsTransient() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("s.db")
    let store = try Store(path: path)
    try enqueue(store, device: "A", date: "2024-03-01", value: 1)
    let mem = try runBracelet(["sync", "--db", path, "--jsonl", "/proc/self/mem", "--once"])
    #expect(mem.status == 1)
    #expect(mem.err.contains("cannot open /proc/self/mem for appending: cannot position at its end"), "\(mem.err)")
    let fifo = folder.path("fifo")
    #expect(mkfifo(fifo, 0o600) == 0)
    let started = Date()
    let pipe = try runBracelet(["sync", "--db", path, "--jsonl", fifo, "--once"])
    #expect(pipe.err.contains("not a regular file"), "\(pipe.err)")
    #expect(Date().timeIntervalSince(started) < 60, "opening the FIFO must not wait for a reader")
    #expect(try store.outboxCounts() == OutboxCounts(pending: 1, delivered: 0, dead: 0))
    #expect(try store.deliveryLog(entryID: try #require(try store.outboxEntries().first).id).isEmpty)
    #expect(JSONLinesSink.outcome(of: EIO, doing: "append to f").label == "configuration_failure")
    #expect(JSONLinesSink.outcome(of: EBADF, doing: "append to f").label == "configuration_failure")
    #expect(JSONLinesSink.outcome(of: ENOSPC, doing: "append to f") == .transientFailure(reason: "cannot append to f: No space left on device", httpStatus: nil))
    #expect(JSONLinesSink.outcome(of: EDQUOT, doing: "fsync f").label == "transient_failure")
}

/// Times at the ends of `Int64` read from the database: no trap in the forwarder's waits or the
/// status's ages and dates (shown clamped to 1970...9999), and the entries still go out.
@Test func extremeTimesReadFromTheDatabaseNeitherTrapNorBlock() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("t.db")
    let store = try Store(path: path)
    let a = try enqueue(store, device: "A", date: "2024-03-01", value: 1)
    let b = try enqueue(store, device: "B", date: "2024-03-01", value: 1)
    let raw = try Database(path: path)
    try raw.execute("UPDATE outbox SET next_attempt_at = -9223372036854775808, created_at = -9223372036854775808 WHERE key = '\(a)'")
    try raw.execute("UPDATE outbox SET created_at = 9223372036854775807 WHERE key = '\(b)'")
    let status = try runBracelet(["sync", "--db", path, "--status", "--format", "json"])
    #expect(status.status == 0, "\(status.err)")
    let object = try #require(try JSONSerialization.jsonObject(with: Data(status.out.utf8)) as? [String: Any])
    #expect(object["oldest_pending_created_at"] as? String == "1970-01-01T00:00:00.000Z")
    let output = folder.path("o.jsonl")
    let sync = try runBracelet(["sync", "--db", path, "--jsonl", output, "--once", "--quiet"])
    #expect(sync.status == 0, "\(sync.err)")
    #expect(try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n").count == 2)
    let edit = try Database(path: path)
    #expect(try edit.scalarInt("SELECT count(*) FROM delivery_log WHERE outcome = 'delivered'") == 2)
    try edit.execute("UPDATE delivery_log SET at = 9223372036854775807")
    let table = try runBracelet(["sync", "--db", path, "--status"])
    #expect(table.status == 0, "\(table.err)")
    #expect(table.out.contains("last success  9999-12-31T23:59:59.999Z (0 s ago)"), "\(table.out)")
}

/// A changed value in a row that ingest never reads (a slot of another bracelet) is refused at open:
/// SQLite's structure check cannot see it and no row check of this ingest reads it, but its page
/// fails its checksum in quick_check, so nothing is appended to the damaged file.
@Test func ingestRefusesAFileWithAChangedByteInARowItDoesNotRead() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("i.db")
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let first = try runBracelet(["ingest", root.appendingPathComponent("captures/v1-day.btsnoop").path, "--db", path])
    #expect(first.status == 0, "\(first.err)")
    // Closed, the file holds everything (the last connection checkpoints and removes its WAL).
    let wal = (try? Data(contentsOf: URL(fileURLWithPath: path + "-wal"))) ?? Data()
    #expect(wal.isEmpty)
    // The last byte of the last row on a leaf page of the slots table (a value, so the page stays
    // well-formed), changed on disk.
    let page = try #require(try Database(path: path, readOnly: true)
        .scalarInt("SELECT max(pageno) FROM dbstat WHERE name = 'slots' AND pagetype = 'leaf'"))
    var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
    let at = Int(page) * 4096 - 8 - 1  // before the page's 8 reserved bytes
    bytes[at] ^= 0x01
    try writeAsDiskDamage(bytes, to: path)

    let second = try runBracelet(["ingest", root.appendingPathComponent("captures/v2-three-days.btsnoop").path, "--db", path])
    #expect(second.status != 0)
    #expect(second.err.contains("database \(path) is corrupt (page "), "\(second.err)")
    #expect(second.err.contains("bracelet db check --db \(path)"), "\(second.err)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes, "nothing was appended")
}

/// A changed byte in the first page (the schema) stops every open; `db check` still lists the page.
@Test func dbCheckListsADamagedFirstPageThatStopsTheOpen() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("f.db")
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    #expect(try runBracelet(["ingest", root.appendingPathComponent("captures/v1-day.btsnoop").path, "--db", path]).status == 0)
    var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
    bytes[4096 - 8 - 1] ^= 0x01  // the last byte of page 1 before its checksum
    try writeAsDiskDamage(bytes, to: path)

    let summarize = try runBracelet(["summarize", "--db", path])
    #expect(summarize.status != 0)
    #expect(summarize.err.contains("page 1 does not match its checksum"), "\(summarize.err)")
    let check = try runBracelet(["db", "check", "--db", path])
    #expect(check.status == 3, "\(check.err)")
    #expect(check.out.contains("damaged: pages: 1 of \(bytes.count / 4096) pages do not match their checksum (changed on disk since bracelet wrote them): page 1 (sqlite_schema)"), "\(check.out)")
}
