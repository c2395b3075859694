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
        var sensorSamples = 0
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

    /// Counts seconds with a value a sensor's stream stored.
    public func recordSensorSamples(_ count: Int) { counters.withLock { $0.sensorSamples += count } }

    /// Counts one operator event written.
    public func recordOperatorEvent() { counters.withLock { $0.events += 1 } }

    /// Completed syncs, failed syncs, bytes received, operator events.
    public var totals: (syncs: Int, failures: Int, bytes: Int, events: Int) {
        counters.withLock { ($0.syncs, $0.failures, $0.bytes, $0.events) }
    }

    /// Seconds with a value sensors' streams stored since this process started.
    public var sensorSamples: Int { counters.withLock { $0.sensorSamples } }

    /// The exposition: this process's counters, each device's last sync (Unix s, by serial or
    /// endpoint), each sink's pending entries, and per standard sensor the seconds with a value
    /// kept since enrolment, its latest value's arrival (Unix s) and its battery.
    public func exposition(lastSyncs: [(device: String, seconds: Double)], pending: [(sink: String, count: Int)],
                           sensors: [(device: String, samplesKept: Int, lastSample: Double?, battery: Int?)] = []) -> String {
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
        metric("bracelet_sensor_samples_total", "counter", "Seconds with a value standard sensors' streams stored (this process).",
               [("", "\(sensorSamples)")])
        metric("bracelet_sensor_samples_kept", "gauge", "Seconds with a value each standard sensor kept since its enrolment.",
               sensors.map { ("{device=\"\(Self.escape($0.device))\"}", "\($0.samplesKept)") })
        metric("bracelet_sensor_last_sample_timestamp_seconds", "gauge", "When each standard sensor's latest value arrived (Unix time).",
               sensors.compactMap { s in s.lastSample.map { ("{device=\"\(Self.escape(s.device))\"}", Self.number($0)) } })
        metric("bracelet_sensor_battery_percent", "gauge", "Each standard sensor's battery level as last read, percent.",
               sensors.compactMap { s in s.battery.map { ("{device=\"\(Self.escape(s.device))\"}", "\($0)") } })
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
