import BraceletStore
import Foundation
import Synchronization

/// The gateway's counters since it started, and the Prometheus text exposition of them with the
/// store's gauges (names `bracelet_*`, counters ending in `_total`, times in seconds). The alert
/// rules shipped with the package (`prometheus/bracelet.rules.yml`) use these names: a rule and
/// its unit test change with a name.
public final class GatewayMetrics: Sendable {
    private struct Counters: Sendable {
        var syncs = 0
        var failures = 0
        var bytes = 0
        var sensorSamples = 0
        /// Operator events written, by event name and device.
        var events: [EventKey: Int] = [:]
    }

    private struct EventKey: Hashable, Sendable {
        var name: String
        var device: String
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

    /// Counts one operator event `name` written for `device`.
    public func recordOperatorEvent(name: String, device: String) {
        counters.withLock { $0.events[EventKey(name: name, device: device), default: 0] += 1 }
    }

    /// Completed syncs, failed syncs, bytes received, operator events (all kinds and devices).
    public var totals: (syncs: Int, failures: Int, bytes: Int, events: Int) {
        counters.withLock { ($0.syncs, $0.failures, $0.bytes, $0.events.values.reduce(0, +)) }
    }

    /// What the store shows when a scrape reads it.
    public struct StoreReadings: Sendable {
        /// The enrolled bracelets with what the gateway last learnt of each.
        public var enrolments: [GatewayEnrolment]
        /// Deliveries per sink.
        public var sinks: [SinkCounts]
        /// How each sink is doing: failing or paused, failed attempts in a row, last success.
        public var health: [SinkHealth]
        /// The database's size and its file system's room, when they could be read.
        public var space: DatabaseSpace?

        /// Readings of the enrolments, sinks, sink health and database space given.
        public init(enrolments: [GatewayEnrolment], sinks: [SinkCounts], health: [SinkHealth] = [], space: DatabaseSpace? = nil) {
            self.enrolments = enrolments
            self.sinks = sinks
            self.health = health
            self.space = space
        }
    }

    /// The exposition: this process's counters and the store's gauges. Per bracelet (label `device`:
    /// its serial, or its endpoint before a sync read the serial): when it was enrolled, last heard
    /// and last synced (Unix s of the gateway's clock), its failed syncs in a row, its battery at
    /// the last connection, and its operator events by name (each known name from 0, so that an
    /// alert on the first one sees it rise). Per sink: entries pending, delivered and dead, and how it
    /// is doing (failing or paused, failed attempts in a row, last success: an alert fires on a sink
    /// that stalls or refuses TLS). The
    /// database: its bytes (with its write-ahead log) and its file system's size and room.
    public func exposition(_ readings: StoreReadings) -> String {
        let (t, events, sensorSamples) = counters.withLock { c in ((c.syncs, c.failures, c.bytes), c.events, c.sensorSamples) }
        var text = ""
        func metric(_ name: String, _ type: String, _ help: String, _ samples: [(labels: String, value: String)]) {
            text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
            for sample in samples { text += "\(name)\(sample.labels) \(sample.value)\n" }
        }
        func device(_ e: GatewayEnrolment) -> String { "{device=\"\(Self.escape(e.serial ?? e.endpoint))\"}" }
        func seconds(_ milliseconds: Int64) -> String { Self.number(Double(milliseconds) / 1_000) }
        let devices = readings.enrolments
        metric("bracelet_syncs_total", "counter", "Bracelet syncs that completed.", [("", "\(t.0)")])
        metric("bracelet_failures_total", "counter", "Bracelet syncs that failed.", [("", "\(t.1)")])
        metric("bracelet_bytes_transferred_total", "counter", "File bytes received from bracelets.", [("", "\(t.2)")])
        var eventKeys = Set(events.keys)
        for e in devices { for name in OperatorEventName.allCases.map(\.rawValue) { eventKeys.insert(EventKey(name: name, device: e.serial ?? e.endpoint)) } }
        metric("bracelet_operator_events_total", "counter", "Operator events written to the outbox, by event and bracelet.",
               eventKeys.sorted { ($0.device, $0.name) < ($1.device, $1.name) }.map { key in
                   ("{device=\"\(Self.escape(key.device))\",event=\"\(Self.escape(key.name))\"}", "\(events[key] ?? 0)")
               })
        metric("bracelet_enrolled_bracelets", "gauge", "Bracelets enrolled in the gateway's database.", [("", "\(devices.count)")])
        metric("bracelet_enrolled_timestamp_seconds", "gauge", "When each bracelet was enrolled (Unix time).",
               devices.map { (device($0), seconds($0.enrolledAt)) })
        metric("bracelet_last_heard_timestamp_seconds", "gauge", "When each bracelet was last heard advertising or connected (Unix time).",
               devices.compactMap { e in e.lastHeardAt.map { (device(e), seconds($0)) } })
        metric("bracelet_last_sync_timestamp_seconds", "gauge", "When each bracelet last completed a sync (Unix time).",
               devices.compactMap { e in e.lastSyncAt.map { (device(e), seconds($0)) } })
        metric("bracelet_sync_failures_in_a_row", "gauge", "Failed syncs of each bracelet since its last completed one.",
               devices.map { (device($0), "\($0.failures)") })
        metric("bracelet_battery_percent", "gauge", "Each bracelet's battery at its last connection, percent.",
               devices.compactMap { e in e.battery.map { (device(e), "\($0)") } })
        func sink(_ s: SinkCounts) -> String { "{sink=\"\(Self.escape(s.sink))\"}" }
        metric("bracelet_outbox_pending", "gauge", "Outbox entries waiting for delivery, per sink.",
               readings.sinks.map { (sink($0), "\($0.pending)") })
        metric("bracelet_outbox_delivered_total", "counter", "Outbox entries the sink confirmed (as the database records them).",
               readings.sinks.map { (sink($0), "\($0.delivered)") })
        metric("bracelet_outbox_dead", "gauge", "Outbox entries the sink refused for good (dead letters), per sink.",
               readings.sinks.map { (sink($0), "\($0.dead)") })
        if let space = readings.space {
            metric("bracelet_database_size_bytes", "gauge", "The database file with its write-ahead log, bytes.", [("", "\(space.databaseBytes)")])
            metric("bracelet_database_filesystem_size_bytes", "gauge", "Size of the file system holding the database, bytes.",
                   [("", "\(space.filesystemBytes)")])
            metric("bracelet_database_filesystem_avail_bytes", "gauge", "Bytes the gateway may still write on the database's file system.",
                   [("", "\(space.availableBytes)")])
        }
        let sensors = devices.filter { $0.sensor != nil }
        metric("bracelet_sensor_samples_total", "counter", "Seconds with a value standard sensors' streams stored (this process).",
               [("", "\(sensorSamples)")])
        metric("bracelet_sensor_samples_kept", "gauge", "Seconds with a value each standard sensor kept since its enrolment.",
               sensors.map { (device($0), "\($0.samplesKept)") })
        metric("bracelet_sensor_last_sample_timestamp_seconds", "gauge", "When each standard sensor's latest value arrived (Unix time).",
               sensors.compactMap { e in e.lastSampleAt.map { (device(e), seconds($0)) } })
        metric("bracelet_sink_failing", "gauge", "1 when the sink's last attempt failed (retrying, or paused until its setup is fixed), else 0.",
               readings.health.map { ("{sink=\"\(Self.escape($0.sink))\"}", $0.state == .ok ? "0" : "1") })
        metric("bracelet_sink_failures_in_a_row", "gauge", "Failed attempts of the sink since it last took an entry.",
               readings.health.map { ("{sink=\"\(Self.escape($0.sink))\"}", "\($0.failuresInARow)") })
        metric("bracelet_sink_last_success_timestamp_seconds", "gauge", "When the sink last confirmed an entry (Unix time).",
               readings.health.compactMap { sink in sink.lastSuccessAt.map { ("{sink=\"\(Self.escape(sink.sink))\"}", Self.number(Double($0) / 1_000)) } })
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

/// How much room the database has: its own bytes and what its file system holds and has left.
public struct DatabaseSpace: Sendable, Equatable {
    /// The database file and its write-ahead log (`-wal`), bytes.
    public var databaseBytes: Int64
    /// The file system's size, bytes.
    public var filesystemBytes: Int64
    /// Bytes an unprivileged writer may still use there (`f_bavail`).
    public var availableBytes: Int64

    /// The given sizes.
    public init(databaseBytes: Int64, filesystemBytes: Int64, availableBytes: Int64) {
        self.databaseBytes = databaseBytes
        self.filesystemBytes = filesystemBytes
        self.availableBytes = availableBytes
    }

    /// The space of the database at `path` (stat of the file and its `-wal`, statvfs of its
    /// folder); `nil` when the file system cannot be read.
    public init?(databasePath path: String) {
        var fs = statvfs()
        let folder = (path as NSString).deletingLastPathComponent
        guard statvfs(folder.isEmpty ? "." : folder, &fs) == 0 else { return nil }
        var bytes: Int64 = 0
        for file in [path, path + "-wal"] {
            var st = stat()
            if stat(file, &st) == 0 { bytes += Int64(st.st_size) }
        }
        self.init(databaseBytes: bytes, filesystemBytes: Int64(fs.f_blocks) * Int64(fs.f_frsize),
                  availableBytes: Int64(fs.f_bavail) * Int64(fs.f_frsize))
    }
}

extension Gateway {
    /// The metrics text of a scrape: the counters with what the store shows now (the enrolments as
    /// stored, else as last read; the sinks and how each is doing; the database's space).
    public func metricsExposition() -> String {
        let readings = GatewayMetrics.StoreReadings(enrolments: (try? store.enrolments()) ?? enrolled, sinks: (try? store.sinkCounts()) ?? [],
                                                    health: (try? store.sinkHealth()) ?? [], space: DatabaseSpace(databasePath: store.path))
        return metrics.exposition(readings)
    }
}
