import BraceletDecoder
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
    /// The study participant (user) the device is assigned to when the entry is read for sending
    /// (the participant record's, so a re-send carries the current one), `nil` when none is set.
    /// Sent with the delivery, not part of the payload snapshot or its hash.
    public var user: String?
    /// What scoring needs of the summary (canonical JSON, the summary without its per-slot arrays),
    /// made by the gateway when it computed the summary; `nil` when it was not made. Not part of the
    /// payload or its hash: a sink that stores it saves decoding the payload.
    public var scoreInput: String?

    /// Creates an entry (the store creates them; sinks' tests may build their own).
    public init(id: Int64, key: String, kind: String, device: String, localDate: String, version: Int, contentHash: String,
                payload: Data, state: OutboxState, attempts: Int, nextAttemptAt: Int64, lastError: String?,
                createdAt: Int64, deliveredAt: Int64?, user: String? = nil, scoreInput: String? = nil) {
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
        self.user = user
        self.scoreInput = scoreInput
    }

    /// The kind as a sink's kind filter names it: `daily:<kind>` is `<kind>`, `sleep_session` is
    /// `sleep`, anything else itself.
    public var shortKind: String { OutboxEntry.shortKind(of: kind) }

    /// The short name of outbox kind `kind` (see ``shortKind``).
    public static func shortKind(of kind: String) -> String {
        if kind.hasPrefix("daily:") { return String(kind.dropFirst("daily:".count)) }
        return kind == "sleep_session" ? "sleep" : kind
    }
}

/// Which outbox entries a sink takes, by short kind (``OutboxEntry/shortKind``, or the full kind).
///
/// An entry of a kind a sink does not take stays pending for a sink that takes it: it is never
/// attempted by this sink and never holds back the kinds this sink takes.
public struct OutboxKindFilter: Sendable, Equatable {
    /// The kinds taken; `nil` takes every kind.
    public let kinds: [String]?

    /// Every kind.
    public static let all = OutboxKindFilter(kinds: nil)

    /// Takes the kinds named (short or full names, e.g. `daily`, `sleep`, `daily:daily`).
    public init(kinds: [String]?) {
        self.kinds = kinds
    }

    /// The short kinds this build writes, as a filter names them: `daily`, `sleep` and `event:NAME`.
    public static var knownKinds: [String] {
        ["daily", "sleep"] + OperatorEventName.allCases.map { "event:" + $0.rawValue }
    }

    /// The kinds of this filter that name no kind: neither one this build writes (short or full
    /// name) nor one the outbox holds (`present`, full names). A typo would otherwise take nothing
    /// and leave every entry pending without a word.
    public func unknownKinds(present: [String]) -> [String] {
        guard let kinds else { return [] }
        let known = Set(Self.knownKinds + ["daily:daily", "sleep_session"] + present + present.map(OutboxEntry.shortKind(of:)))
        return kinds.filter { !known.contains($0) }
    }

    /// Whether an entry of outbox kind `kind` is taken.
    public func takes(kind: String) -> Bool {
        guard let kinds else { return true }
        return kinds.contains(kind) || kinds.contains(OutboxEntry.shortKind(of: kind))
    }

    /// The kinds as a JSON array for SQL's `json_each`, `nil` for every kind.
    var jsonArray: String? {
        guard let kinds else { return nil }
        let bytes = try? CanonicalJSON.bytes(of: kinds, what: "the outbox kinds")
        return bytes.map { String(decoding: $0, as: UTF8.self) } ?? "[]"
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

/// The state of the outbox at a glance, for `sync --status` and the end of a run.
public struct OutboxStatus: Sendable, Equatable {
    /// Entries per state.
    public var counts: OutboxCounts
    /// Pending entries per short kind (``OutboxEntry/shortKind``).
    public var pendingByKind: [String: Int]
    /// When the oldest pending entry was written, Unix ms; `nil` when nothing is pending.
    public var oldestPendingCreatedAt: Int64?
    /// The earliest time the head of a device queue may next be attempted, Unix ms; `nil` when
    /// nothing is pending.
    public var nextAttemptAt: Int64?
    /// The last attempt a sink confirmed (`delivered` or `already_had`), `nil` when none ever was.
    public var lastSuccess: DeliveryLogRecord?
    /// The last attempt that failed, `nil` when none ever did.
    public var lastFailure: DeliveryLogRecord?
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
    /// `delivered`, `already_had`, `transient_failure`, `configuration_failure` or `permanent_failure`.
    public var outcome: String
    /// The HTTP status, when the sink speaks HTTP and got an answer.
    public var httpStatus: Int?
    /// The failure reason, `nil` for successes.
    public var error: String?
}
