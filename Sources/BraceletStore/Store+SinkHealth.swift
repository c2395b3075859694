/// How a sink is doing, from its delivery log: the last attempt, the last success, and how many
/// attempts failed since. Read by `gateway status` and `/metrics`, so a sink that stalls (every
/// attempt ends at its timeout), refuses TLS or pauses shows without reading the log.
public struct SinkHealth: Sendable, Hashable {
    /// What the last attempt says about the sink.
    public enum State: String, Sendable, Hashable {
        /// The last attempt was delivered, or refused for the entry alone (a dead letter: the sink works).
        case ok
        /// The last attempt failed and will be retried (no connection, no answer in time, HTTP 5xx).
        case failing
        /// The last attempt found the sink set up wrong (credentials, URL, a redirect, TLS): it
        /// waits until someone fixes it.
        case paused
    }

    /// The sink's name, as the delivery log records it.
    public var sink: String
    /// The state after the last attempt.
    public var state: State
    /// When it was last attempted (Unix ms).
    public var lastAttemptAt: Int64
    /// When it last confirmed an entry (Unix ms), `nil` when it never did.
    public var lastSuccessAt: Int64?
    /// Failed attempts of the sink's own (not an entry's refusal) since it last answered for an
    /// entry; 0 when the last attempt was delivered.
    public var failuresInARow: Int
    /// The error of the last attempt when it failed.
    public var lastError: String?

    /// A sink's health as the fields say.
    package init(sink: String, state: State, lastAttemptAt: Int64, lastSuccessAt: Int64?, failuresInARow: Int, lastError: String?) {
        self.sink = sink
        self.state = state
        self.lastAttemptAt = lastAttemptAt
        self.lastSuccessAt = lastSuccessAt
        self.failuresInARow = failuresInARow
        self.lastError = lastError
    }
}

extension Store {
    /// The health of every sink of the delivery log, by name.
    public func sinkHealth() throws -> [SinkHealth] {
        try locked { db in
            let statement = try db.prepare(Self.sinkHealthQuery)
            var found: [SinkHealth] = []
            while try statement.step() {
                let outcome = statement.text(at: 2) ?? ""
                let state: SinkHealth.State = switch outcome {
                case "transient_failure": .failing
                case "configuration_failure": .paused
                default: .ok
                }
                found.append(SinkHealth(sink: statement.text(at: 0) ?? "", state: state, lastAttemptAt: statement.int64(at: 1) ?? 0,
                                        lastSuccessAt: statement.int64(at: 4), failuresInARow: statement.int(at: 5) ?? 0,
                                        lastError: state == .ok ? nil : statement.text(at: 3)))
            }
            return found
        }
    }

    /// Each sink's last attempt, last success (the latest delivered or already-had row) and the
    /// attempts since it last answered for an entry, read through the indexes by sink
    /// (`delivery_log_by_sink`, `delivery_log_by_sink_outcome`): the sinks are found by hopping from
    /// one name to the next, each figure is one index look-up, and the count reads only the
    /// failures since. `gateway status` and every `/metrics` scrape run it; grouping the whole log
    /// by sink read every row of it each time.
    static let sinkHealthQuery = """
        WITH RECURSIVE sinks(name) AS (
            SELECT (SELECT min(sink) FROM delivery_log)
            UNION ALL
            SELECT (SELECT min(sink) FROM delivery_log WHERE sink > name) FROM sinks WHERE name IS NOT NULL
        ),
        heads AS (
            SELECT name,
                   (SELECT max(id) FROM delivery_log WHERE sink = name) AS last_id,
                   max(coalesce((SELECT max(id) FROM delivery_log WHERE sink = name AND outcome = 'delivered'), 0),
                       coalesce((SELECT max(id) FROM delivery_log WHERE sink = name AND outcome = 'already_had'), 0)) AS success_id,
                   coalesce((SELECT max(id) FROM delivery_log WHERE sink = name AND outcome = 'permanent_failure'), 0) AS refused_id
            FROM sinks WHERE name IS NOT NULL
        )
        SELECT h.name, l.at, l.outcome, l.error, s.at,
               (SELECT count(*) FROM delivery_log f WHERE f.sink = h.name AND f.id > max(h.success_id, h.refused_id))
        FROM heads h JOIN delivery_log l ON l.id = h.last_id LEFT JOIN delivery_log s ON s.id = nullif(h.success_id, 0)
        ORDER BY h.name
        """
}
