import BraceletStore

/// Something the forwarder did, for progress output.
public enum ForwarderEvent: Sendable, Equatable {
    /// The sink confirmed the entry (`outcome` is `delivered` or `already_had`).
    case delivered(key: String, attempt: Int, outcome: String)
    /// The attempt failed; the entry waits until `retryAt` (Unix ms).
    case retryScheduled(key: String, attempt: Int, retryAt: Int64, reason: String)
    /// The entry became a dead letter.
    case dead(key: String, attempt: Int, reason: String)
    /// Nothing is due; the forwarder waits `milliseconds`.
    case waiting(milliseconds: Int64, pending: Int)
}

/// What one forwarder run did.
public struct ForwarderReport: Sendable, Equatable {
    /// Entries the sink confirmed (including `already had`).
    public var delivered = 0
    /// Failed attempts that will be retried.
    public var retried = 0
    /// Entries that became dead letters.
    public var dead = 0

    /// An empty report.
    public init() {}

    mutating func add(_ other: ForwarderReport) {
        delivered += other.delivered
        retried += other.retried
        dead += other.dead
    }
}

/// Delivers pending outbox entries to one sink: in order per device, at least once, with backoff
/// and dead letters.
///
/// Guarantees:
/// - Order per device: only the earliest pending entry of a device is ever attempted
///   (``Store/pendingOutboxHeads()``), so a later entry waits while an earlier one is pending.
///   A dead entry no longer blocks its device.
/// - At least once: an entry is recorded delivered (state + delivery log, one transaction) only
///   after the sink confirmed it. A crash in between re-delivers it on the next run; sinks dedupe
///   by ``OutboxEntry/key``.
/// - Recomputed summaries: every version has its own entry and key with its own snapshot, so a
///   summary recomputed while v1 waits is delivered as v1 then v2. The receiver keeps the highest
///   version; nothing is skipped and no key is sent twice by design (only again after a crash).
public struct Forwarder: Sendable {
    /// The database with the outbox.
    public let store: Store
    /// Where entries go.
    public let sink: any OutboxSink
    /// Backoff and dead-letter settings.
    public let policy: RetryPolicy
    /// Time source and sleeping.
    public let clock: any ForwarderClock
    /// A uniform random number in `[0, 1]` for the jitter.
    public let random: @Sendable () -> Double
    /// Called for every event (progress output).
    public let onEvent: @Sendable (ForwarderEvent) -> Void

    /// Creates a forwarder.
    public init(store: Store, sink: any OutboxSink, policy: RetryPolicy, clock: any ForwarderClock = SystemClock(),
                random: @escaping @Sendable () -> Double = { Double.random(in: 0...1) },
                onEvent: @escaping @Sendable (ForwarderEvent) -> Void = { _ in }) {
        self.store = store
        self.sink = sink
        self.policy = policy
        self.clock = clock
        self.random = random
        self.onEvent = onEvent
    }

    /// Attempts every entry that is due now, following each device's queue as entries get delivered,
    /// without sleeping. Returns when no pending entry is due.
    public func deliverDue() async throws -> ForwarderReport {
        var report = ForwarderReport()
        while true {
            let now = clock.nowMilliseconds()
            let due = try store.pendingOutboxHeads().filter { $0.nextAttemptAt <= now }
            if due.isEmpty { return report }
            for entry in due {
                try Task.checkCancellation()
                report.add(try await attempt(entry))
            }
        }
    }

    /// Delivers until nothing is pending (every entry delivered or dead), sleeping through backoffs.
    public func drain() async throws -> ForwarderReport {
        var report = ForwarderReport()
        while true {
            report.add(try await deliverDue())
            let pending = try store.pendingOutboxHeads()
            guard let next = pending.map(\.nextAttemptAt).min() else { return report }
            let wait = next - clock.nowMilliseconds()
            if wait > 0 {
                onEvent(.waiting(milliseconds: wait, pending: pending.count))
                try await clock.sleep(milliseconds: wait)
            }
        }
    }

    /// Delivers forever: whatever is due now, then polls every `pollMilliseconds` for new entries
    /// (or sooner when a retry falls due). Stops only when the task is cancelled or the store fails
    /// with anything but a lock held by another process (that one is waited out).
    public func follow(pollMilliseconds: Int64) async throws {
        while true {
            try Task.checkCancellation()
            let nextRetry: Int64?
            do {
                _ = try await deliverDue()
                nextRetry = try store.pendingOutboxHeads().map(\.nextAttemptAt).min()
            } catch let error as StoreError {
                guard case .locked = error else { throw error }
                try await clock.sleep(milliseconds: pollMilliseconds)
                continue
            }
            let untilRetry = nextRetry.map { $0 - clock.nowMilliseconds() } ?? pollMilliseconds
            try await clock.sleep(milliseconds: max(1, min(pollMilliseconds, untilRetry)))
        }
    }

    /// One delivery attempt and its bookkeeping.
    func attempt(_ entry: OutboxEntry) async throws -> ForwarderReport {
        let outcome: DeliveryOutcome
        do {
            outcome = try await sink.deliver(entry)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            outcome = .transientFailure(reason: "\(error)", httpStatus: nil)
        }
        let at = clock.nowMilliseconds()
        let attemptNumber = entry.attempts + 1
        var report = ForwarderReport()
        switch outcome {
        case .delivered, .alreadyHad:
            try store.recordDelivered(entryID: entry.id, sink: sink.name, outcome: outcome.label, httpStatus: outcome.httpStatus, at: at)
            report.delivered = 1
            onEvent(.delivered(key: entry.key, attempt: attemptNumber, outcome: outcome.label))
        case let .permanentFailure(reason, status):
            try store.recordFailedAttempt(entryID: entry.id, sink: sink.name, outcome: outcome.label, error: reason,
                                          httpStatus: status, at: at, retryAt: nil)
            report.dead = 1
            onEvent(.dead(key: entry.key, attempt: attemptNumber, reason: reason))
        case let .transientFailure(reason, status):
            if attemptNumber >= policy.maxAttempts {
                let message = "gave up after \(attemptNumber) attempts; last error: \(reason)"
                try store.recordFailedAttempt(entryID: entry.id, sink: sink.name, outcome: outcome.label, error: message,
                                              httpStatus: status, at: at, retryAt: nil)
                report.dead = 1
                onEvent(.dead(key: entry.key, attempt: attemptNumber, reason: message))
            } else {
                let retryAt = at + policy.delayMilliseconds(afterFailures: attemptNumber, unitRandom: random())
                try store.recordFailedAttempt(entryID: entry.id, sink: sink.name, outcome: outcome.label, error: reason,
                                              httpStatus: status, at: at, retryAt: retryAt)
                report.retried = 1
                onEvent(.retryScheduled(key: entry.key, attempt: attemptNumber, retryAt: retryAt, reason: reason))
            }
        }
        return report
    }
}
