import BraceletDecoder
import BraceletExport
import BraceletStore
import Foundation

/// `bracelet sync --status`: the outbox at a glance, as JSON or a table.
///
/// JSON keeps `pending`, `delivered`, `dead` and `dead_entries` at the top level and adds
/// `pending_by_kind`, `oldest_pending_age_seconds`, `oldest_pending_created_at`,
/// `next_attempt_at`, `last_success_at`, `last_success_age_seconds`, `last_failure` and
/// `paused_reason` (`null` when there is none). A dead entry's `reason` is `null` when no error
/// was recorded, never an empty string.
struct SyncStatusPrinter {
    let store: Store
    let filter: OutboxKindFilter
    let json: Bool
    var now: Int64 = Store.systemMilliseconds()

    init(store: Store, filter: OutboxKindFilter, json: Bool) {
        self.store = store
        self.filter = filter
        self.json = json
    }

    func print() throws {
        let status = try store.outboxStatus(filter: filter)
        let dead = try store.outboxEntries(state: .dead, payloads: false).filter { filter.takes(kind: $0.kind) }
        if json { try printJSON(status, dead: dead) } else { printTable(status, dead: dead) }
    }

    /// The reason the sink paused, when the last attempt of any sink was a configuration failure.
    func pausedReason(_ status: OutboxStatus) -> String? {
        guard let failure = status.lastFailure, failure.outcome == "configuration_failure" else { return nil }
        if let success = status.lastSuccess, success.at > failure.at { return nil }
        return failure.error
    }

    /// Seconds from `at` to now; a time read from the database outside 1970...now counts as its
    /// nearest end, so a damaged value cannot overflow the subtraction.
    func ageSeconds(since at: Int64?) -> Double? {
        at.map { Double(ageMilliseconds(since: $0)) / 1000 }
    }

    func ageMilliseconds(since at: Int64) -> Int64 {
        now - min(max(at, 0), now)
    }

    /// ISO 8601 of a time read from the database, clamped to years 1970...9999 for the same reason.
    static func iso(_ ms: Int64) -> String {
        UTCTime.iso8601(unixMilliseconds: min(max(ms, 0), 253_402_300_799_999))
    }

    func printJSON(_ status: OutboxStatus, dead: [OutboxEntry]) throws {
        func text(_ s: String?) -> JSONValue { s.map { .string($0) } ?? .null }
        func int(_ n: Int?) -> JSONValue { n.map { .int(Int64($0)) } ?? .null }
        func number(_ x: Double?) -> JSONValue { x.map { .double($0) } ?? .null }
        let deadEntries: [JSONValue] = dead.map { entry in
            .object([
                "key": .string(entry.key), "device": .string(entry.device), "local_date": .string(entry.localDate),
                "kind": .string(entry.kind), "version": int(entry.version), "attempts": int(entry.attempts),
                "reason": text(entry.lastError),
            ])
        }
        let lastFailure: JSONValue = status.lastFailure.map { failure in
            .object([
                "at": .string(Self.iso(failure.at)), "sink": .string(failure.sink), "outcome": .string(failure.outcome),
                "error": text(failure.error), "http_status": int(failure.httpStatus),
            ])
        } ?? .null
        let object: JSONValue = .object([
            "pending": int(status.counts.pending), "delivered": int(status.counts.delivered), "dead": int(status.counts.dead),
            "dead_entries": .array(deadEntries),
            "pending_by_kind": .object(status.pendingByKind.mapValues { int($0) }),
            "oldest_pending_age_seconds": number(ageSeconds(since: status.oldestPendingCreatedAt)),
            "oldest_pending_created_at": text(status.oldestPendingCreatedAt.map { Self.iso($0) }),
            "next_attempt_at": text(status.nextAttemptAt.map { Self.iso($0) }),
            "last_success_at": text(status.lastSuccess.map { Self.iso($0.at) }),
            "last_success_age_seconds": number(ageSeconds(since: status.lastSuccess?.at)),
            "last_failure": lastFailure,
            "paused_reason": text(pausedReason(status)),
        ])
        Swift.print(String(decoding: try object.jsonData(prettyPrinted: true), as: UTF8.self))
    }

    func printTable(_ status: OutboxStatus, dead: [OutboxEntry]) {
        let oldest = status.oldestPendingCreatedAt.map { " (oldest written \(Self.duration(ageMilliseconds(since: $0))) ago)" } ?? ""
        let byKind = status.pendingByKind.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        Swift.print("pending    \(status.counts.pending)\(oldest)\(byKind.isEmpty ? "" : " [\(byKind)]")")
        Swift.print("delivered  \(status.counts.delivered)")
        Swift.print("dead       \(status.counts.dead)")
        if let success = status.lastSuccess {
            Swift.print("last success  \(Self.iso(success.at)) (\(Self.duration(ageMilliseconds(since: success.at))) ago) to \(success.sink)")
        } else {
            Swift.print("last success  never")
        }
        if let failure = status.lastFailure {
            Swift.print("last failure  \(Self.iso(failure.at)) \(failure.outcome): \(failure.error ?? "")")
        }
        if let paused = pausedReason(status) { Swift.print("PAUSED: \(paused)") }
        for entry in dead {
            Swift.print("  dead \(entry.key) after \(entry.attempts) attempts: \(entry.lastError ?? "no reason recorded")")
        }
    }

    /// `3 h 12 min`, `4 min 5 s`, `12 s`.
    static func duration(_ milliseconds: Int64) -> String {
        let seconds = max(0, milliseconds / 1000)
        if seconds >= 86_400 { return "\(seconds / 86_400) d \(seconds % 86_400 / 3600) h" }
        if seconds >= 3600 { return "\(seconds / 3600) h \(seconds % 3600 / 60) min" }
        if seconds >= 60 { return "\(seconds / 60) min \(seconds % 60) s" }
        return "\(seconds) s"
    }
}
