import BraceletStore

/// Something the forwarder did, for progress output.
public enum ForwarderEvent: Sendable, Equatable {
    /// The sink confirmed the entry (`outcome` is `delivered` or `already_had`).
    case delivered(key: String, attempt: Int, outcome: String)
    /// The attempt failed transiently; the entry waits until `retryAt` (Unix ms).
    case retryScheduled(key: String, attempt: Int, retryAt: Int64, reason: String)
    /// The receiver refused the entry for good: it became a dead letter.
    case dead(key: String, attempt: Int, reason: String)
    /// The sink cannot take anything as configured: nothing more is attempted until it is fixed
    /// (`--follow` probes again after the longest backoff).
    case paused(sink: String, reason: String)
    /// Pending entries whose next attempt lay beyond the longest backoff were moved to now + cap.
    case rescheduled(count: Int)
    /// Nothing is due; the forwarder waits `milliseconds`.
    case waiting(milliseconds: Int64, pending: Int)
    /// The fleet forwarder wrote the gateway's status (its devices' and its sinks') to the fleet.
    case statusReported(devices: Int, sinks: Int)
    /// The gateway's status could not be written to the fleet; it is read and written again at the
    /// next report.
    case statusNotReported(reason: String)
}

/// What one forwarder run did.
public struct ForwarderReport: Sendable, Equatable {
    /// Entries the sink confirmed (including `already had`).
    public var delivered = 0
    /// Failed attempts that will be retried.
    public var retried = 0
    /// Entries that became dead letters.
    public var dead = 0
    /// Why the sink paused, when it did (a configuration failure).
    public var pausedReason: String?

    /// An empty report.
    public init() {}

    /// Adds the counts of `other`, and its pause reason when it has one (the fleet forwarder sums its batches with it).
    package mutating func add(_ other: ForwarderReport) {
        delivered += other.delivered
        retried += other.retried
        dead += other.dead
        pausedReason = other.pausedReason ?? pausedReason
    }
}

/// Delivers pending outbox entries to one sink: in order per device, at least once, with backoff,
/// without ever giving up on a transient failure.
///
/// Guarantees:
/// - Order per device: only the earliest pending entry of a device among the kinds the sink takes
///   is ever attempted (``Store/pendingOutboxHeads(filter:)``). A dead entry no longer blocks its
///   device; an entry of a kind the sink does not take never does.
/// - At least once: an entry is recorded delivered (state + delivery log, one transaction) only
///   after the sink confirmed it. A crash in between re-delivers it on the next run; sinks dedupe
///   by ``OutboxEntry/key``.
/// - Outages: transient failures back off up to the policy's cap and are retried for as long as
///   they last. A configuration failure pauses the sink; a permanent refusal makes one dead letter.
/// - Once per pass: a pass attempts each entry at most once, so a database that lies about an
///   entry's state cannot make it be sent in a loop.
/// - A stalled sink costs one wait per pass: a failure without an answer (no connection, no answer
///   within the timeout, a full disk) is the sink's, not the entry's, so the pass ends there and the
///   entries it did not try stay due for the next pass. `sync --once` against a receiver that never
///   answers thus ends after one `--timeout`, however many devices wait.
public struct Forwarder: Sendable {
    /// The database with the outbox.
    public let store: Store
    /// Where entries go.
    public let sink: any OutboxSink
    /// Backoff settings.
    public let policy: RetryPolicy
    /// The kinds this sink takes.
    public let filter: OutboxKindFilter
    /// Time source and sleeping.
    public let clock: any ForwarderClock
    /// A uniform random number in `[0, 1]` for the jitter.
    public let random: @Sendable () -> Double
    /// Called for every event (progress output).
    public let onEvent: @Sendable (ForwarderEvent) -> Void
    /// Where every store call runs: SQLite blocks on full fsync and other processes' locks, which must
    /// not hold a thread of the cooperative pool that deliveries and sleeps run on.
    private let storeQueue = SerialWorkQueue(label: "bracelet.forwarder.store")

    /// Creates a forwarder.
    public init(store: Store, sink: any OutboxSink, policy: RetryPolicy, filter: OutboxKindFilter = .all,
                clock: any ForwarderClock = SystemClock(),
                random: @escaping @Sendable () -> Double = { Double.random(in: 0...1) },
                onEvent: @escaping @Sendable (ForwarderEvent) -> Void = { _ in }) {
        self.store = store
        self.sink = sink
        self.policy = policy
        self.filter = filter
        self.clock = clock
        self.random = random
        self.onEvent = onEvent
    }

    /// One pass: attempts every entry that is due now, each at most once, following each device's
    /// queue as entries get delivered, without sleeping. Stops early when the sink pauses, and after
    /// a transient failure without an answer (``DeliveryOutcome/isSinkWide``).
    public func deliverDue() async throws -> ForwarderReport {
        var report = ForwarderReport()
        let now = clock.nowMilliseconds()
        let (latest, overflow) = now.addingReportingOverflow(policy.maxDelayMilliseconds)
        let moved = try await onStore { try $0.rescheduleOutbox(notAfter: overflow ? Int64.max : latest) }
        if moved > 0 { onEvent(.rescheduled(count: moved)) }
        var attempted = Set<Int64>()
        while true {
            let now = clock.nowMilliseconds()
            let due = try await onStore { [filter] in try $0.pendingOutboxHeads(filter: filter) }.filter { $0.nextAttemptAt <= now && !attempted.contains($0.id) }
            if due.isEmpty { return report }
            for entry in due {
                try Task.checkCancellation()
                attempted.insert(entry.id)
                let (result, outcome) = try await attempt(entry)
                report.add(result)
                if report.pausedReason != nil || outcome.isSinkWide { return report }
            }
        }
    }

    /// Delivers until nothing the sink takes is pending, sleeping through backoffs however long an
    /// outage lasts. Returns early when the sink pauses (``ForwarderReport/pausedReason``).
    public func drain() async throws -> ForwarderReport {
        try await DeliveryLoop.drain(clock: clock, onEvent: onEvent, pass: { try await deliverDue() }, pendingAttemptTimes: {
            try await onStore { [filter] in try $0.pendingAttemptTimes(filter: filter, headsOnly: true) }
        })
    }

    /// Delivers forever: whatever is due now, then polls every `pollMilliseconds` for new entries
    /// (or sooner when a retry falls due). A paused sink is probed again after the longest backoff.
    /// Stops only when the task is cancelled or the store fails with anything but a lock held by
    /// another process (that one is waited out).
    public func follow(pollMilliseconds: Int64) async throws {
        try await DeliveryLoop.follow(clock: clock, pollMilliseconds: pollMilliseconds, pausedMilliseconds: policy.maxDelayMilliseconds,
                                      pass: { try await deliverDue() }, nextRetry: {
            try await onStore { [filter] in try $0.pendingAttemptTimes(filter: filter, headsOnly: true) }.min()
        })
    }

    /// How long from `now` until `time` (both Unix ms; negative when past). A stored time is only
    /// trusted to be an integer: one before 1970 counts as 1970, so the difference cannot overflow.
    package static func milliseconds(until time: Int64, now: Int64) -> Int64 {
        max(time, 0) - max(now, 0)
    }

    /// Runs `work` with the store on ``storeQueue``, suspending until it is done.
    private func onStore<T: Sendable>(_ work: @escaping @Sendable (Store) throws -> T) async throws -> T {
        let store = self.store
        return try await storeQueue.run { try work(store) }
    }

    /// One delivery attempt and its bookkeeping; returns the outcome with the report.
    func attempt(_ entry: OutboxEntry) async throws -> (ForwarderReport, DeliveryOutcome) {
        let outcome: DeliveryOutcome
        do {
            outcome = try await sink.deliver(entry)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            outcome = .transientFailure(reason: "\(error)", httpStatus: nil)
        }
        let at = clock.nowMilliseconds()
        let attemptNumber = entry.attempts == Int.max ? Int.max : max(0, entry.attempts) + 1
        var report = ForwarderReport()
        switch outcome {
        case .delivered, .alreadyHad:
            let (name, label, status) = (sink.name, outcome.label, outcome.httpStatus)
            try await onStore { try $0.recordDelivered(entryID: entry.id, sink: name, outcome: label, httpStatus: status, at: at) }
            report.delivered = 1
            onEvent(.delivered(key: entry.key, attempt: attemptNumber, outcome: outcome.label))
        case let .permanentFailure(reason, status):
            try await recordFailed(entry, outcome, reason: reason, status: status, at: at, retryAt: nil)
            report.dead = 1
            onEvent(.dead(key: entry.key, attempt: attemptNumber, reason: reason))
        case let .configurationFailure(reason, status):
            // The entry is not at fault: it stays due, to go first once the sink works again.
            try await recordFailed(entry, outcome, reason: reason, status: status, at: at, retryAt: min(at, entry.nextAttemptAt))
            report.pausedReason = reason
            onEvent(.paused(sink: sink.name, reason: reason))
        case let .transientFailure(reason, status):
            let (retryAt, overflow) = at.addingReportingOverflow(policy.delayMilliseconds(afterFailures: attemptNumber, unitRandom: random()))
            try await recordFailed(entry, outcome, reason: reason, status: status, at: at, retryAt: overflow ? Int64.max : retryAt)
            report.retried = 1
            onEvent(.retryScheduled(key: entry.key, attempt: attemptNumber, retryAt: retryAt, reason: reason))
        }
        return (report, outcome)
    }

    /// Records a failed attempt of `entry` (on ``storeQueue``); `retryAt` nil makes it a dead letter.
    private func recordFailed(_ entry: OutboxEntry, _ outcome: DeliveryOutcome, reason: String, status: Int?, at: Int64,
                              retryAt: Int64?) async throws {
        let (name, label) = (sink.name, outcome.label)
        try await onStore {
            try $0.recordFailedAttempt(entryID: entry.id, sink: name, outcome: label, error: reason, httpStatus: status,
                                       at: at, retryAt: retryAt)
        }
    }
}
