import BraceletStore
import Foundation
import Synchronization

/// The gateway's counters since it started, and the Prometheus text exposition of them with the
/// store's gauges (names `bracelet_*`, counters ending in `_total`, times in seconds).
public final class GatewayMetrics: Sendable {
    private struct Counters: Sendable {
        var syncs = 0
        var failures = 0
        var bytes = 0
        var events = 0
    }

    private let counters = Mutex(Counters())

    /// No syncs yet.
    public init() {}

    /// Counts one sync attempt: completed or failed, and the payload bytes it received.
    public func recordSync(completed: Bool, bytes: Int) {
        counters.withLock { c in
            if completed { c.syncs += 1 } else { c.failures += 1 }
            c.bytes += bytes
        }
    }

    /// Counts one operator event written.
    public func recordOperatorEvent() { counters.withLock { $0.events += 1 } }

    /// Completed syncs, failed syncs, bytes received, operator events.
    public var totals: (syncs: Int, failures: Int, bytes: Int, events: Int) {
        counters.withLock { ($0.syncs, $0.failures, $0.bytes, $0.events) }
    }

    /// The exposition: this process's counters, each device's last sync (Unix s, by serial or
    /// endpoint), each sink's pending entries, and how each sink is doing (`sinks`: failing or
    /// paused, failed attempts in a row, last success), so an alert fires on a sink that stalls or
    /// refuses TLS.
    public func exposition(lastSyncs: [(device: String, seconds: Double)], pending: [(sink: String, count: Int)],
                           sinks: [SinkHealth] = []) -> String {
        let t = totals
        var text = ""
        func metric(_ name: String, _ type: String, _ help: String, _ samples: [(labels: String, value: String)]) {
            text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
            for sample in samples { text += "\(name)\(sample.labels) \(sample.value)\n" }
        }
        metric("bracelet_syncs_total", "counter", "Bracelet syncs that completed.", [("", "\(t.syncs)")])
        metric("bracelet_failures_total", "counter", "Bracelet syncs that failed.", [("", "\(t.failures)")])
        metric("bracelet_bytes_transferred_total", "counter", "File bytes received from bracelets.", [("", "\(t.bytes)")])
        metric("bracelet_operator_events_total", "counter", "Operator events written to the outbox.", [("", "\(t.events)")])
        metric("bracelet_last_sync_timestamp_seconds", "gauge", "When each bracelet last completed a sync (Unix time).",
               lastSyncs.map { ("{device=\"\(Self.escape($0.device))\"}", Self.number($0.seconds)) })
        metric("bracelet_outbox_pending", "gauge", "Outbox entries waiting for delivery, per sink.",
               pending.map { ("{sink=\"\(Self.escape($0.sink))\"}", "\($0.count)") })
        metric("bracelet_sink_failing", "gauge", "1 when the sink's last attempt failed (retrying, or paused until its setup is fixed), else 0.",
               sinks.map { ("{sink=\"\(Self.escape($0.sink))\"}", $0.state == .ok ? "0" : "1") })
        metric("bracelet_sink_failures_in_a_row", "gauge", "Failed attempts of the sink since it last took an entry.",
               sinks.map { ("{sink=\"\(Self.escape($0.sink))\"}", "\($0.failuresInARow)") })
        metric("bracelet_sink_last_success_timestamp_seconds", "gauge", "When the sink last confirmed an entry (Unix time).",
               sinks.compactMap { sink in sink.lastSuccessAt.map { ("{sink=\"\(Self.escape(sink.sink))\"}", Self.number(Double($0) / 1_000)) } })
        return text
    }

    /// A label value escaped as the text format requires (backslash, quote, newline).
    static func escape(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }

    private static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
    }
}
