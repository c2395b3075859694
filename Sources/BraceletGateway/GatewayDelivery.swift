import BraceletDecoder
import BraceletFleet
import BraceletStore
import BraceletSync

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
    /// - Throws: the sink's setup error (bad URL, unwritable file, unreachable fleet database) at
    ///   once; later, only a store failure other than a lock held by another process.
    public func follow(store: Store, policy: RetryPolicy, pollMilliseconds: Int64, timeoutSeconds: Double? = nil,
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
            try await FleetForwarder(store: store, sink: sink, policy: policy, onEvent: onEvent).follow(pollMilliseconds: pollMilliseconds)
        }
    }
}
