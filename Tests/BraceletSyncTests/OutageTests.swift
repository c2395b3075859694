import BraceletStore
import Foundation
import Testing
@testable import BraceletSync

/// A manual clock that brings a receiver up once the time it was told passes: the outage lasts as
/// long as the clock says, not as long as the test waits.
final class OutageClock: ForwarderClock, @unchecked Sendable {
    private let lock = NSLock()
    private var current: Int64
    private var recorded: [Int64] = []
    private let upAt: Int64
    private var bringUp: (() throws -> Void)?

    init(start: Int64, upAt: Int64, bringUp: @escaping () throws -> Void) {
        current = start
        self.upAt = upAt
        self.bringUp = bringUp
    }

    var sleeps: [Int64] { lock.withLock { recorded } }

    func nowMilliseconds() -> Int64 { lock.withLock { current } }

    func sleep(milliseconds: Int64) async throws {
        let start = lock.withLock { () -> (() throws -> Void)? in
            recorded.append(milliseconds)
            current += milliseconds
            guard current >= upAt, let up = bringUp else { return nil }
            bringUp = nil
            return up
        }
        try start?()
    }
}

/// A receiver that is down (connection refused: nobody listens on its port) for an hour of the
/// forwarder's clock, then up. Everything arrives, each idempotency key exactly once, in order per
/// device, and nothing became a dead letter on the way.
@Test func aReceiverDownForAnHourThenUpReceivesEverythingExactlyOncePerKey() async throws {
    let folder = try TemporaryFolder()
    let store = try Store(path: folder.path("a.db"))
    var keys: [String] = []
    for day in 1...4 {
        for device in ["A", "B", "C"] { keys.append(try enqueue(store, device: device, date: "2024-03-0\(day)", value: day)) }
    }
    let port = try unusedLocalPort()
    let counts = Counter()
    let server = ServerBox()
    defer { server.value?.stop() }
    let start = Store.systemMilliseconds()
    let hour: Int64 = 3_600_000
    let clock = OutageClock(start: start, upAt: start + hour) {
        server.value = try TestHTTPServer(port: port) { request, _ in
            let key = request.headers["idempotency-key"] ?? ""
            return counts.add(key) == 1 ? .respond(status: 200, body: "") : .respond(status: 409, body: "have it")
        }
    }
    let sink = try WebhookSink(url: "http://127.0.0.1:\(port)/in", secret: "k", timeoutSeconds: 5)
    let policy = try RetryPolicy(baseDelayMilliseconds: 1_000, maxDelayMilliseconds: 300_000)
    let forwarder = Forwarder(store: store, sink: sink, policy: policy, clock: clock, random: { 1 })
    let report = try await forwarder.drain()

    #expect(report.dead == 0)
    #expect(report.delivered == keys.count)
    #expect(try store.outboxCounts() == OutboxCounts(pending: 0, delivered: keys.count, dead: 0))
    #expect(counts.perKey == Dictionary(uniqueKeysWithValues: keys.map { ($0, 1) }), "each key exactly once")
    let arrived = try #require(server.value).requests.compactMap { $0.headers["idempotency-key"] }
    for device in ["A", "B", "C"] {
        #expect(arrived.filter { $0.hasPrefix(device + "/") } == keys.filter { $0.hasPrefix(device + "/") }, "order of \(device)")
    }
    // The backoff doubled from 1 s to the 5 min cap and stayed there; the hour passed in the clock.
    let sleeps = clock.sleeps
    #expect(sleeps.prefix(9) == [1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 128_000, 256_000])
    #expect(sleeps.dropFirst(9).allSatisfy { $0 == 300_000 })
    #expect(clock.nowMilliseconds() - start >= hour)
    // Only the head of each device was tried during the outage; each failure is in the log.
    let headA = try #require(try store.outboxEntries().first { $0.key == "A/2024-03-01/daily/v1" })
    let log = try store.deliveryLog(entryID: headA.id)
    #expect(log.count == sleeps.count + 1)
    #expect(log.dropLast().allSatisfy { $0.outcome == "transient_failure" && $0.error?.contains("network error") == true })
    #expect(log.last?.outcome == "delivered")
}

/// Counts requests per key, across the receiver's threads.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var counts: [String: Int] = [:]

    /// Counts `key` once more and returns how often it came.
    func add(_ key: String) -> Int { lock.withLock { counts[key, default: 0] += 1; return counts[key] ?? 0 } }

    var perKey: [String: Int] { lock.withLock { counts } }
}

/// The receiver, once it is up.
final class ServerBox: @unchecked Sendable {
    private let lock = NSLock()
    private var server: TestHTTPServer?
    var value: TestHTTPServer? {
        get { lock.withLock { server } }
        set { lock.withLock { server = newValue } }
    }
}

@Test func onePassTriesEachDueEntryOnceAndLeavesFailuresPending() async throws {
    let folder = try TemporaryFolder()
    let store = try Store(path: folder.path("a.db"))
    let a1 = try enqueue(store, device: "A", date: "2024-03-01", value: 1)
    let a2 = try enqueue(store, device: "A", date: "2024-03-02", value: 1)
    let b1 = try enqueue(store, device: "B", date: "2024-03-01", value: 1)
    let b2 = try enqueue(store, device: "B", date: "2024-03-02", value: 1)
    let clock = ManualClock(start: Store.systemMilliseconds())
    let busy = DeliveryOutcome.transientFailure(reason: "HTTP 503 from receiver", httpStatus: 503)
    let sink = ScriptedSink(script: [b1: [busy, busy]], clock: clock)
    // Random 0 makes the retry delay 0 ms: B's head is due again at once, and the pass must still
    // not try it twice.
    let forwarder = Forwarder(store: store, sink: sink, policy: try RetryPolicy(baseDelayMilliseconds: 1), clock: clock, random: { 0 })
    let report = try await forwarder.deliverDue()
    // A's queue is followed to its end; B's head failed once and its second entry waits behind it.
    #expect(Set(sink.attempts) == [a1, a2, b1])
    #expect(sink.attempts.count == 3)
    #expect(report == { var r = ForwarderReport(); r.delivered = 2; r.retried = 1; return r }())
    #expect(clock.sleeps == [])
    let pending = try store.outboxEntries(state: .pending).map(\.key)
    #expect(pending == [b1, b2])
    #expect(try store.pendingOutboxHeads().map(\.lastError) == ["HTTP 503 from receiver"])
}

/// A failure without an answer (no connection, no answer in time) is the sink's: the pass ends at
/// it, and the entries it did not try stay due, untouched, for the next pass. So a receiver that
/// stalls costs one timeout per pass, not one per device.
@Test func aFailureWithoutAnAnswerEndsThePass() async throws {
    let folder = try TemporaryFolder()
    let store = try Store(path: folder.path("a.db"))
    let keys = try ["A", "B", "C", "D"].map { try enqueue(store, device: $0, date: "2024-03-01", value: 1) }
    let clock = ManualClock(start: Store.systemMilliseconds())
    let stalled = DeliveryOutcome.transientFailure(reason: "no answer within 10 s", httpStatus: nil)
    let sink = ScriptedSink(script: Dictionary(uniqueKeysWithValues: keys.map { ($0, [stalled]) }), clock: clock)
    let forwarder = Forwarder(store: store, sink: sink, policy: try RetryPolicy(), clock: clock, random: { 0 })
    let report = try await forwarder.deliverDue()
    #expect(sink.attempts.count == 1)
    #expect(report == { var r = ForwarderReport(); r.retried = 1; return r }())
    let untried = try store.outboxEntries(state: .pending).filter { $0.attempts == 0 }
    #expect(untried.count == 3)
}

/// A stored retry time far in the future (a clock set back, or a damaged `Int64.max`) is pulled in
/// to now + the cap instead of holding its device for ever, and a stored attempt count of
/// `Int64.max` neither traps nor stops the delivery.
@Test func damagedScheduleValuesFromTheDatabaseNeitherTrapNorBlock() async throws {
    let folder = try TemporaryFolder()
    let path = folder.path("a.db")
    let store = try Store(path: path)
    let a = try enqueue(store, device: "A", date: "2024-03-01", value: 1)
    let b = try enqueue(store, device: "B", date: "2024-03-01", value: 1)
    let raw = try Database(path: path)
    try raw.execute("UPDATE outbox SET attempts = 9223372036854775807 WHERE key = '\(a)'")
    try raw.execute("UPDATE outbox SET next_attempt_at = 9223372036854775807 WHERE key = '\(b)'")
    let start = Store.systemMilliseconds()
    let clock = ManualClock(start: start)
    let sink = ScriptedSink(clock: clock)
    let policy = try RetryPolicy(baseDelayMilliseconds: 1_000, maxDelayMilliseconds: 60_000)
    let events = EventLog()
    let forwarder = Forwarder(store: store, sink: sink, policy: policy, clock: clock, onEvent: { events.append($0) })
    let report = try await forwarder.drain()
    #expect(report.delivered == 2)
    #expect(sink.attempts == [a, b])
    #expect(sink.times(of: b) == [start + 60_000])
    #expect(clock.sleeps == [60_000])
    #expect(events.all.contains(.rescheduled(count: 1)))
    #expect(events.all.contains(.delivered(key: a, attempt: Int.max, outcome: "delivered")))
    #expect(try store.outboxCounts() == OutboxCounts(pending: 0, delivered: 2, dead: 0))
}

/// Forwarder events, in order.
final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [ForwarderEvent] = []
    var all: [ForwarderEvent] { lock.withLock { events } }
    func append(_ event: ForwarderEvent) { lock.withLock { events.append(event) } }
}
