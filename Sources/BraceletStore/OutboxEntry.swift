import Foundation

/// Where an outbox entry stands.
public enum OutboxState: String, Sendable, Equatable, CaseIterable {
    /// Not yet confirmed by the sink; the forwarder will (re)try it.
    case pending
    /// The sink confirmed it (or said it already had it).
    case delivered
    /// Given up: a permanent refusal, or too many failed attempts. `lastError` says why.
    case dead
}

/// One summary version waiting for (or done with) delivery.
///
/// The payload is a snapshot taken when the summary changed, so a later recompute never alters what
/// an earlier entry sends: each version is delivered once, in order.
public struct OutboxEntry: Sendable, Equatable {
    /// Row id; increases with creation order.
    public var id: Int64
    /// The idempotency key `<device>/<local date>/<kind>/v<version>`, unique in the outbox.
    public var key: String
    /// `daily:<summary kind>` or `sleep_session`.
    public var kind: String
    /// The bracelet's serial number.
    public var device: String
    /// The local date (`YYYY-MM-DD`) the summary belongs to.
    public var localDate: String
    /// The summary version (1, 2, ...): bumped each time its content changes.
    public var version: Int
    /// SHA-256 (hex) of the canonical summary JSON.
    public var contentHash: String
    /// The JSON body to deliver (envelope with key, kind, device, date, version, hash and summary).
    public var payload: Data
    /// Where the entry stands.
    public var state: OutboxState
    /// Delivery attempts made so far.
    public var attempts: Int
    /// Not to be attempted before this time, Unix milliseconds.
    public var nextAttemptAt: Int64
    /// Why the last attempt failed, `nil` when none failed.
    public var lastError: String?
    /// When the entry was written, Unix milliseconds.
    public var createdAt: Int64
    /// When the sink confirmed it, Unix milliseconds.
    public var deliveredAt: Int64?

    /// Creates an entry (the store creates them; sinks' tests may build their own).
    public init(id: Int64, key: String, kind: String, device: String, localDate: String, version: Int, contentHash: String,
                payload: Data, state: OutboxState, attempts: Int, nextAttemptAt: Int64, lastError: String?,
                createdAt: Int64, deliveredAt: Int64?) {
        self.id = id
        self.key = key
        self.kind = kind
        self.device = device
        self.localDate = localDate
        self.version = version
        self.contentHash = contentHash
        self.payload = payload
        self.state = state
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.lastError = lastError
        self.createdAt = createdAt
        self.deliveredAt = deliveredAt
    }
}

/// How many outbox entries are in each state.
public struct OutboxCounts: Sendable, Equatable {
    /// Entries still to deliver.
    public var pending: Int
    /// Entries the sink confirmed.
    public var delivered: Int
    /// Entries given up on.
    public var dead: Int

    /// Creates counts.
    public init(pending: Int, delivered: Int, dead: Int) {
        self.pending = pending
        self.delivered = delivered
        self.dead = dead
    }
}

/// One delivery attempt as recorded in the delivery log.
public struct DeliveryLogRecord: Sendable, Equatable {
    /// The outbox entry attempted.
    public var outboxID: Int64
    /// The sink's name (`webhook http://...`, `jsonl /path`, ...).
    public var sink: String
    /// 1 for the first attempt of the entry, 2 for the second, ...
    public var attempt: Int
    /// When the attempt ended, Unix milliseconds.
    public var at: Int64
    /// `delivered`, `already_had`, `transient_failure` or `permanent_failure`.
    public var outcome: String
    /// The HTTP status, when the sink speaks HTTP and got an answer.
    public var httpStatus: Int?
    /// The failure reason, `nil` for successes.
    public var error: String?
}
