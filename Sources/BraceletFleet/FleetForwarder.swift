import BraceletStore
import BraceletSync

/// Delivers pending outbox entries to the fleet database in batches: one PostgreSQL transaction
/// and one SQLite transaction per batch, instead of one of each per entry.
///
/// The guarantees are the forwarder's (``BraceletSync/Forwarder``): at least once (an entry is
/// recorded delivered only after the server committed it), transient failures retried with backoff
/// for as long as they last, a configuration failure pauses, one attempt per entry per pass. Order
/// per device is not needed here: the sink keeps the newest version whatever order versions
/// arrive in, so a whole device queue may go in one batch. A server that stalls costs one wait per
/// pass (a batch failed as a whole without an answer ends the pass), and a cancelled task stops the
/// batch under way at once.
///
/// Given a ``FleetStatusReporter`` (a gateway's database), each pass that reached the server also
/// keeps the gateway's status there, at the reporter's rate, and a drain ends with it.
public struct FleetForwarder: Sendable {
    /// The gateway's database with the outbox.
    public let store: Store
    /// The fleet database.
    public let sink: PostgresSink
    /// Backoff settings.
    public let policy: RetryPolicy
    /// The kinds this sink takes.
    public let filter: OutboxKindFilter
    /// Entries per transaction.
    public let batchSize: Int
    /// Time source and sleeping.
    public let clock: any ForwarderClock
    /// A uniform random number in `[0, 1]` for the jitter.
    public let random: @Sendable () -> Double
    /// Called for every event (progress output).
    public let onEvent: @Sendable (ForwarderEvent) -> Void
    /// Keeps the gateway's status in the fleet, when given.
    public let status: FleetStatusReporter?

    /// Creates a forwarder; `batchSize` is clamped to 1...10,000.
    public init(store: Store, sink: PostgresSink, policy: RetryPolicy, filter: OutboxKindFilter = .all, batchSize: Int = 1_000,
                clock: any ForwarderClock = SystemClock(), random: @escaping @Sendable () -> Double = { Double.random(in: 0...1) },
                status: FleetStatusReporter? = nil, onEvent: @escaping @Sendable (ForwarderEvent) -> Void = { _ in }) {
        self.store = store
        self.status = status
        self.sink = sink
        self.policy = policy
        self.filter = filter
        self.batchSize = min(10_000, max(1, batchSize))
        self.clock = clock
        self.random = random
        self.onEvent = onEvent
    }

    /// One pass: every entry due now, each attempted at most once, in batches read from the store one
    /// at a time (see ``BraceletStore/Store/pendingOutboxEntries(filter:dueBy:afterID:limit:byteBudget:)``).
    /// Stops early when the sink pauses. Then, unless the sink paused or did not answer, the
    /// gateway's status when it is due (``status``).
    public func deliverDue() async throws -> ForwarderReport {
        let (report, answered) = try await deliverEntries()
        if report.pausedReason == nil, answered { try await reportStatus(ignoringInterval: false) }
        return report
    }

    /// Writes the gateway's status when due (see ``FleetStatusReporter/reportIfDue(to:now:ignoringInterval:)``),
    /// saying how it went as an event; only a cancellation is thrown.
    func reportStatus(ignoringInterval: Bool) async throws {
        guard let status else { return }
        do {
            if let written = try await status.reportIfDue(to: sink, now: clock.nowMilliseconds(), ignoringInterval: ignoringInterval) {
                onEvent(.statusReported(devices: written.devices, sinks: written.sinks))
            }
        } catch let error as CancellationError {
            throw error
        } catch {
            onEvent(.statusNotReported(reason: "\(error)"))
        }
    }

    /// The entries of one pass; `answered` is false when the server could not be reached or
    /// asked (the pass ended at a sink-wide failure).
    private func deliverEntries() async throws -> (report: ForwarderReport, answered: Bool) {
        var report = ForwarderReport()
        let now = clock.nowMilliseconds()
        let (latest, overflow) = now.addingReportingOverflow(policy.maxDelayMilliseconds)
        let moved = try store.rescheduleOutbox(notAfter: overflow ? Int64.max : latest)
        if moved > 0 { onEvent(.rescheduled(count: moved)) }
        // A batch at a time, by id: at most `batchSize` entries and 16 MB of payload in memory, and
        // each entry due now attempted once in this pass (the next batch starts after the last id).
        // Devices the server would refuse from this gateway go last: their refusal pauses the pass,
        // and it must not hold back the devices it may deliver. So the due entries are read twice,
        // first for every other device, then for the refused ones.
        var refused: Set<String> = []
        for refusedOnes in [false, true] {
            var after: Int64 = 0
            while true {
                try Task.checkCancellation()
                let read = try store.pendingOutboxEntries(filter: filter, dueBy: now, afterID: after, limit: batchSize)
                guard let last = read.last else { break }
                after = last.id
                if !refusedOnes {
                    let unknown = Set(read.map(\.device)).subtracting(refused)
                    if !unknown.isEmpty {
                        do { refused.formUnion(try await sink.refusedDevices(among: unknown)) } catch let error as FleetError {
                            // The server cannot be asked: the batch would fail the same way, so it is
                            // charged with that failure and the pass ends (one wait per pass).
                            report.add(try record(read, Array(repeating: PostgresSink.outcome(of: error), count: read.count)))
                            return (report, false)
                        }
                    }
                }
                let batch = read.filter { refused.contains($0.device) == refusedOnes }
                guard !batch.isEmpty else { continue }
                let outcomes = try await sink.send(batch: batch)
                report.add(try record(batch, outcomes))
                // A batch that failed as a whole without an answer failed for the sink, not for its
                // entries: the next batch would wait the same timeout, so the pass ends.
                if report.pausedReason != nil || outcomes.allSatisfy(\.isSinkWide) { return (report, !outcomes.allSatisfy(\.isSinkWide)) }
            }
            if refused.isEmpty { break }
        }
        return (report, true)
    }

    /// Delivers until nothing the sink takes is pending, sleeping through backoffs however long an
    /// outage lasts. Returns early when the sink pauses.
    public func drain() async throws -> ForwarderReport {
        let report = try await DeliveryLoop.drain(clock: clock, onEvent: onEvent, pass: { try await deliverDue() }, pendingAttemptTimes: {
            try store.pendingAttemptTimes(filter: filter)
        })
        // The status as the drain left it (what was delivered since the last report).
        if report.pausedReason == nil { try await reportStatus(ignoringInterval: true) }
        return report
    }

    /// Delivers forever: what is due, then polls every `pollMilliseconds`. A paused sink is probed
    /// again after the longest backoff; a database locked by another process is waited out.
    public func follow(pollMilliseconds: Int64) async throws {
        try await DeliveryLoop.follow(clock: clock, pollMilliseconds: pollMilliseconds, pausedMilliseconds: policy.maxDelayMilliseconds,
                                      pass: { try await deliverDue() }, nextRetry: { nil })
    }

    /// Records a batch's outcomes in one store transaction.
    func record(_ batch: [OutboxEntry], _ outcomes: [DeliveryOutcome]) throws -> ForwarderReport {
        let at = clock.nowMilliseconds()
        let unitRandom = random()
        var report = ForwarderReport()
        var events: [ForwarderEvent] = []
        try store.transaction {
            for (entry, outcome) in zip(batch, outcomes) {
                let attempt = entry.attempts == Int.max ? Int.max : max(0, entry.attempts) + 1
                switch outcome {
                case .delivered, .alreadyHad:
                    try store.recordDelivered(entryID: entry.id, sink: sink.name, outcome: outcome.label, httpStatus: nil, at: at)
                    report.delivered += 1
                    events.append(.delivered(key: entry.key, attempt: attempt, outcome: outcome.label))
                case let .permanentFailure(reason, _):
                    try store.recordFailedAttempt(entryID: entry.id, sink: sink.name, outcome: outcome.label, error: reason,
                                                  httpStatus: nil, at: at, retryAt: nil)
                    report.dead += 1
                    events.append(.dead(key: entry.key, attempt: attempt, reason: reason))
                case let .configurationFailure(reason, _):
                    try store.recordFailedAttempt(entryID: entry.id, sink: sink.name, outcome: outcome.label, error: reason,
                                                  httpStatus: nil, at: at, retryAt: min(at, entry.nextAttemptAt))
                    if report.pausedReason == nil { events.append(.paused(sink: sink.name, reason: reason)) }
                    report.pausedReason = reason
                case let .transientFailure(reason, _):
                    // One draw for the batch: its entries retry together, as they failed together.
                    let delay = policy.delayMilliseconds(afterFailures: attempt, unitRandom: unitRandom)
                    let (retryAt, overflow) = at.addingReportingOverflow(delay)
                    try store.recordFailedAttempt(entryID: entry.id, sink: sink.name, outcome: outcome.label, error: reason,
                                                  httpStatus: nil, at: at, retryAt: overflow ? Int64.max : retryAt)
                    report.retried += 1
                    events.append(.retryScheduled(key: entry.key, attempt: attempt, retryAt: retryAt, reason: reason))
                }
            }
        }
        events.forEach(onEvent)
        return report
    }
}

