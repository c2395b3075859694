import BraceletDecoder
import BraceletStore
import Foundation

/// `bracelet sync --status`: the outbox at a glance, as JSON or a table.
///
/// JSON keeps `pending`, `delivered`, `dead` and `dead_entries` at the top level and adds
/// `pending_by_kind`, `oldest_pending_age_seconds`, `oldest_pending_created_at`,
/// `next_attempt_at`, `last_success_at`, `last_success_age_seconds`, `last_failure` and
/// `paused_reason` (`null` when there is none).
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
        let dead = try store.outboxEntries(state: .dead).filter { filter.takes(kind: $0.kind) }
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
        let null = NSNull()
        let deadEntries: [[String: Any]] = dead.map { entry in
            [
                "key": entry.key, "device": entry.device, "local_date": entry.localDate, "kind": entry.kind,
                "version": entry.version, "attempts": entry.attempts, "reason": entry.lastError ?? "",
            ]
        }
        let lastFailure: Any = status.lastFailure.map { failure -> [String: Any] in
            [
                "at": Self.iso(failure.at), "sink": failure.sink, "outcome": failure.outcome,
                "error": failure.error ?? null, "http_status": failure.httpStatus ?? null,
            ]
        } ?? null
        let object: [String: Any] = [
            "pending": status.counts.pending, "delivered": status.counts.delivered, "dead": status.counts.dead,
            "dead_entries": deadEntries,
            "pending_by_kind": status.pendingByKind,
            "oldest_pending_age_seconds": ageSeconds(since: status.oldestPendingCreatedAt) ?? null,
            "oldest_pending_created_at": status.oldestPendingCreatedAt.map { Self.iso($0) } ?? null,
            "next_attempt_at": status.nextAttemptAt.map { Self.iso($0) } ?? null,
            "last_success_at": status.lastSuccess.map { Self.iso($0.at) } ?? null,
            "last_success_age_seconds": ageSeconds(since: status.lastSuccess?.at) ?? null,
            "last_failure": lastFailure,
            "paused_reason": pausedReason(status) ?? null,
        ]
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])
        Swift.print(String(decoding: data, as: UTF8.self))
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
