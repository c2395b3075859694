import BraceletStore
import Foundation
import Testing
@testable import BraceletSync

/// One entry of device SN1 in a new database.
private func storedEntry(_ folder: TemporaryFolder, value: Int = 42) throws -> (Store, OutboxEntry) {
    let store = try Store(path: folder.path("a.db"))
    try enqueue(store, device: "SN1", date: "2024-03-01", value: value)
    return (store, try #require(try store.outboxEntries().first))
}

/// A receiver answering a redirect to another receiver that would take anything: the entry is not
/// delivered, the other receiver never hears of it, and the reason names where the redirect points
/// (its query value hidden) and says to configure that URL. URLSession followed these before: a
/// 307 was re-sent with an empty body, a 302 became a GET, and the entry counted as delivered.
@Test(arguments: [307, 302, 301, 308])
func aRedirectIsAFailedAttemptNamingTheLocation(status: Int) async throws {
    let folder = try TemporaryFolder()
    let (_, entry) = try storedEntry(folder)
    let target = try TestHTTPServer { _, _ in .respond(status: 200, body: "ok") }
    defer { target.stop() }
    let server = try TestHTTPServer { _, _ in
        .respondWithHeaders(status: status, headers: ["Location": target.url + "?token=t0ken"], body: "moved")
    }
    defer { server.stop() }
    let sink = try WebhookSink(url: server.url, secret: "k", timeoutSeconds: 5)
    let outcome = try await sink.deliver(entry)
    let shown = target.url + "?token=***"
    #expect(outcome == .configurationFailure(
        reason: "HTTP \(status) from \(server.url) redirects to \(shown): bracelet does not follow redirects (the signed body would not "
            + "reach it intact); if that is the receiver, configure it: --webhook \(shown)",
        httpStatus: status))
    #expect(target.requests.isEmpty, "the redirect was followed: \(target.requests.map(\.method))")
    // The one request the redirecting receiver got carried the whole signed body.
    let request = try #require(server.requests.first)
    #expect(server.requests.count == 1)
    #expect(request.method == "POST")
    #expect(try request.decodedBody == entry.deliveryBody)
}

/// The issue's run as an operator would see it: `sync --once` against a 307 receiver delivers
/// nothing, says so, pauses (exit 78) and leaves every entry pending; the redirect target holds no
/// request.
@Test func syncAgainstARedirectingReceiverDeliversNothingAndPauses() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("s.db")
    let store = try Store(path: path)
    for device in ["A", "B", "C"] {
        for day in 1...3 { try enqueue(store, device: device, date: "2024-03-0\(day)", value: day) }
    }
    let target = try TestHTTPServer { _, _ in .respond(status: 200, body: "") }
    defer { target.stop() }
    let server = try TestHTTPServer { _, _ in .respondWithHeaders(status: 307, headers: ["Location": target.url], body: "") }
    defer { server.stop() }
    let result = try runBracelet(["sync", "--db", path, "--webhook", server.url, "--once"], environment: ["BRACELET_WEBHOOK_SECRET": "k"])
    #expect(result.status == 78, "stderr: \(result.err)")
    #expect(result.err.contains("sync: done: 0 delivered"))
    #expect(result.err.contains("redirects to \(target.url)"))
    #expect(result.err.contains("configure it: --webhook \(target.url)"))
    #expect(target.requests.isEmpty)
    #expect(try store.outboxCounts() == OutboxCounts(pending: 9, delivered: 0, dead: 0))
}

/// A receiver that answers with 512 MiB: only the first bytes are read (the client stops reading,
/// so the server cannot write more than its socket buffers take), for a 2xx and for a refusal,
/// whose reason quotes 200 bytes of it. The sink once read such a body whole (2.6 GB of RSS).
@Test(arguments: [200, 422])
func aHugeAnswerIsReadOnlyUpToTheCap(status: Int) async throws {
    let folder = try TemporaryFolder()
    let (_, entry) = try storedEntry(folder)
    let huge = 512 << 20
    let server = try TestHTTPServer { _, _ in .hugeBody(status: status, bytes: huge) }
    defer { server.stop() }
    let sink = try WebhookSink(url: server.url, secret: "k", timeoutSeconds: 30)
    let outcome = try await sink.deliver(entry)
    if status == 200 {
        #expect(outcome == .delivered(httpStatus: 200))
    } else {
        #expect(outcome == .permanentFailure(reason: "HTTP 422 from \(server.url): " + String(repeating: "a", count: 200), httpStatus: 422))
    }
    // What the server could write once the client stopped reading: its socket buffers, far below the body.
    #expect(server.bodyBytesWritten < 64 << 20, "the client read \(server.bodyBytesWritten) bytes of the answer")
}

/// A receiver that answers 200 before it read the request body (and closes) did not receive the
/// entry: it is not counted as delivered.
@Test func anAnswerBeforeTheWholeBodyIsNotDelivered() async throws {
    let folder = try TemporaryFolder()
    let store = try Store(path: folder.path("a.db"))
    // 24 MB of JSON, sent as it is: more than the loopback's socket buffers hold, so the body is
    // still being sent when the answer comes.
    let big = String(repeating: "0123456789abcdef", count: 1_500_000)
    _ = try store.upsertDailySummary(device: "SN1", localDate: "2024-03-01", kind: "daily", json: Data(#"{"pad":"\#(big)"}"#.utf8))
    let entry = try #require(try store.outboxEntries().first)
    #expect(entry.deliveryBody.count > 20_000_000)
    let server = try TestHTTPServer(readsBody: false) { _, _ in .respond(status: 200, body: "thanks") }
    defer { server.stop() }
    let sink = try WebhookSink(url: server.url, secret: "k", timeoutSeconds: 30, encoding: .identity)
    let outcome = try await sink.deliver(entry)
    #expect(outcome.label == "transient_failure", "got \(outcome)")
}

/// A receiver that takes the connection and never answers, with entries of four devices due:
/// `sync --once` ends after one attempt's timeout (a stalled sink costs one wait per pass, not one
/// per device), exits 75, and says which timeout ended it.
@Test func aStalledReceiverEndsSyncOnceAfterOneTimeout() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("s.db")
    let store = try Store(path: path)
    for device in ["A", "B", "C", "D"] { try enqueue(store, device: device, date: "2024-03-01", value: 1) }
    let server = try TestHTTPServer { _, _ in .hang(seconds: 300) }
    defer { server.stop() }
    let result = try runBracelet(["sync", "--db", path, "--webhook", server.url, "--once", "--timeout", "1"],
                                 environment: ["BRACELET_WEBHOOK_SECRET": "k"], deadlineSeconds: 120)
    #expect(result.status == 75, "stderr: \(result.err)")
    #expect(server.requests.count == 1)
    #expect(result.err.contains("no answer from \(server.url) within 1 s (--timeout)"))
    #expect(result.err.contains("4 entries still pending"))
    #expect(try store.outboxCounts().pending == 4)
}

/// SIGTERM ends `sync --follow` within 5 s while a request hangs (the receiver says nothing for 300 s
/// and the timeout is 600 s, so only the signal can end it), and ends it as a run ends: exit 0, a
/// closing line, the entry still pending, no WAL left behind. Without a handler the signal killed
/// the process where it stood.
@Test func sigtermEndsSyncFollowWhileARequestHangs() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("s.db")
    let store = try Store(path: path)
    try enqueue(store, device: "A", date: "2024-03-01", value: 1)
    let server = try TestHTTPServer { _, _ in .hang(seconds: 300) }
    defer { server.stop() }
    let process = try startBracelet(["sync", "--db", path, "--webhook", server.url, "--follow", "--timeout", "600"],
                                    environment: ["BRACELET_WEBHOOK_SECRET": "k"])
    defer { try? FileManager.default.removeItem(atPath: process.errorPath) }
    #expect(waitUntil(seconds: 60) { server.requests.count == 1 }, "the request never came")
    let signalled = ContinuousClock.now
    kill(process.process.processIdentifier, SIGTERM)
    let ended = waitUntil(seconds: 30) { !process.process.isRunning }
    if !ended { kill(process.process.processIdentifier, SIGKILL); process.process.waitUntilExit() }
    let waited = signalled.duration(to: .now)
    #expect(ended && waited < .seconds(5), "sync --follow took \(waited) to end after SIGTERM")
    #expect(process.process.terminationReason == .exit && process.process.terminationStatus == 0,
            "ended by \(process.process.terminationReason == .exit ? "exit" : "signal") \(process.process.terminationStatus): \(process.err)")
    #expect(process.err.contains("sync: stopped by SIGTERM; everything delivered is recorded, 1 entries pending"), "\(process.err)")
    #expect(try store.outboxCounts().pending == 1)
    let wal = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
    #expect(wal == 0, "a WAL of \(wal) bytes was left behind")
}
