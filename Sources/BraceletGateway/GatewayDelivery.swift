import BraceletDecoder
import BraceletFleet
import BraceletStore
import BraceletSync
import BraceletVitality

/// Where the gateway delivers the outbox, continuously, in its own process: the same forwarders,
/// retry, pause and dead-letter rules as `bracelet sync --follow`.
public enum GatewayDelivery: Sendable {
    /// POST each entry to a webhook, signed with the secret.
    case webhook(url: String, secret: String)
    /// Append each entry to a JSON Lines file (fsynced).
    case jsonl(path: String)
    /// Upsert entries into the PostgreSQL fleet database, in batches.
    case postgres(uri: String)

    /// The sink as logs show it: a URL without its user info and query values (``URLRedaction``).
    public var description: String {
        switch self {
        case .webhook(let url, _): "webhook \(URLRedaction.redacted(url))"
        case .jsonl(let path): "jsonl \(path)"
        case .postgres(let uri): "postgres \(URLRedaction.redacted(uri))"
        }
    }

    /// Delivers until the task is cancelled: whatever is due, then every `pollMilliseconds` (a
    /// paused sink is probed again after the policy's longest backoff). `timeoutSeconds` bounds a
    /// webhook request (default 10 s) or a PostgreSQL statement (default 30 s); a cancelled task
    /// stops the request or statement under way at once.
    ///
    /// To the fleet database the gateway also reports its status, what its study page shows of its
    /// devices and sinks (``BraceletVitality/StudyGatewayStatus/gateway(store:at:thresholds:)`` read
    /// at `now`, the gateway's clock in Unix ms, its events judged open by `thresholds`, the ones it
    /// raises them by), at most every `statusSeconds` when it changed, every 15 min when it did not
    /// (``BraceletFleet/FleetStatusReporter``).
    ///
    /// - Throws: the sink's setup error (bad URL, unwritable file, unreachable fleet database) at
    ///   once; later, only a store failure other than a lock held by another process.
    public func follow(store: Store, policy: RetryPolicy, pollMilliseconds: Int64, timeoutSeconds: Double? = nil,
                       thresholds: OperatorEvents.Thresholds, now: @escaping @Sendable () -> Int64 = { Store.systemMilliseconds() }, statusSeconds: Double = 60,
                       onEvent: @escaping @Sendable (ForwarderEvent) -> Void) async throws {
        switch self {
        case let .webhook(url, secret):
            let sink = try WebhookSink(url: url, secret: secret, timeoutSeconds: timeoutSeconds ?? 10)
            try await Forwarder(store: store, sink: sink, policy: policy, onEvent: onEvent).follow(pollMilliseconds: pollMilliseconds)
        case .jsonl(let path):
            let sink = try JSONLinesSink(path: path)
            try await Forwarder(store: store, sink: sink, policy: policy, onEvent: onEvent).follow(pollMilliseconds: pollMilliseconds)
        case .postgres(let uri):
            let timeouts = FleetTimeouts(statementSeconds: timeoutSeconds.map { Int($0.rounded(.up)) } ?? 30)
            let sink = PostgresSink(server: try FleetServer(uri: uri), timeouts: timeouts)
            try await FleetForwarder(store: store, sink: sink, policy: policy, status: Self.statusReporter(store: store, now: now, everySeconds: statusSeconds,
                                                                                                 thresholds: thresholds),
                                     onEvent: onEvent).follow(pollMilliseconds: pollMilliseconds)
        }
    }

    /// What keeps the status of the gateway of `store` in the fleet: read at `now` (Unix ms, the
    /// gateway's clock) at most every `everySeconds`, its events open by `thresholds`.
    static func statusReporter(store: Store, now: @escaping @Sendable () -> Int64, everySeconds: Double,
                               thresholds: OperatorEvents.Thresholds) -> FleetStatusReporter {
        FleetStatusReporter(everyMilliseconds: Int64(everySeconds * 1_000)) {
            try StudyGatewayStatus.gateway(store: store, at: now(), thresholds: thresholds)
        }
    }
}
