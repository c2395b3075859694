import BraceletStore

/// Somewhere outbox entries go: a webhook, a JSON Lines file, the in-process vitality adapter.
///
/// A sink must be idempotent by ``OutboxEntry/key``, or leave deduplication to its reader: the
/// forwarder delivers at least once, so after a crash between "sink confirmed" and "store recorded
/// it" the same entry comes again.
public protocol OutboxSink: Sendable {
    /// A short description for logs and the delivery log, e.g. `webhook http://127.0.0.1:8080/in`.
    var name: String { get }

    /// Delivers one entry and says how it went. Throwing counts as a transient failure.
    func deliver(_ entry: OutboxEntry) async throws -> DeliveryOutcome
}
