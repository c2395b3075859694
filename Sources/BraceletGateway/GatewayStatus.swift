import BraceletDecoder
import BraceletStore

/// What `gateway status` shows: each enrolled bracelet and each sink, read from the database (so
/// it works whether or not a gateway runs), and the latest operator events.
public struct GatewayStatus: Sendable {
    /// The enrolments with what the gateway last learnt of each.
    public var devices: [GatewayEnrolment]
    /// Deliveries per sink.
    public var sinks: [SinkCounts]
    /// How each sink is doing (by name; a sink never attempted has none).
    public var sinkHealth: [String: SinkHealth]
    /// The latest operator events, newest first.
    public var events: [(key: String, kind: String, device: String, state: String, createdAt: Int64)]

    /// Reads the status from `store`.
    public init(store: Store, eventLimit: Int = 20) throws {
        // The user is the participant record's once a sync read the serial (the enrolment holds
        // it only until then).
        devices = try store.enrolments().map { enrolment in
            var shown = enrolment
            if let serial = enrolment.serial, let user = try store.user(ofDevice: serial) { shown.user = user }
            return shown
        }
        sinks = try store.sinkCounts()
        sinkHealth = Dictionary(try store.sinkHealth().map { ($0.sink, $0) }, uniquingKeysWith: { first, _ in first })
        events = try store.operatorEvents(limit: eventLimit)
    }

    /// The status as canonical JSON: `devices` (objects with `serial`, `endpoint`, `address`, `user`,
    /// `state`, `last_heard`, `last_sync`, `backlog_bytes`, `battery`, `wearing`, `failures`,
    /// `last_error`, `link_security` (the link the enrolment requires, `encrypted` or `authenticated`,
    /// null while it is learned from the device's answers), and for a standard sensor `sensor` (its
    /// profiles), `samples_kept` (seconds with a value stored since enrolment) and `last_sample` (its
    /// latest value's arrival): null for a bracelet; times as ISO 8601 UTC, unknown values null),
    /// `sinks` (`sink`, `pending`, `delivered`, `dead`, `state` (`ok`, `failing`, `paused`; null
    /// before any attempt), `failures_in_a_row`, `last_attempt`, `last_success`, `last_error`) and
    /// `events` (`key`, `event`, `device`, `state`, `at`).
    public func json() -> [UInt8] {
        let root = CanonicalJSON.Node(.object)
        let list = root.child(forKey: "devices")
        list.value = .array
        func text(_ value: String?) -> CanonicalJSON.Node.Value { value.map { .string($0) } ?? .null }
        func int(_ value: Int?) -> CanonicalJSON.Node.Value { value.map { .int(Int64($0)) } ?? .null }
        func time(_ value: Int64?) -> CanonicalJSON.Node.Value { value.map { .string(UTCTime.iso8601(unixMilliseconds: $0)) } ?? .null }
        for d in devices {
            let node = list.appendElement()
            node.value = .object
            node.child(forKey: "serial").value = text(d.serial)
            node.child(forKey: "endpoint").value = .string(d.endpoint)
            node.child(forKey: "address").value = text(d.endpoint.hasPrefix("ble:") ? String(d.endpoint.dropFirst(4)) : nil)
            node.child(forKey: "user").value = text(d.user)
            node.child(forKey: "state").value = .string(d.state)
            node.child(forKey: "last_heard").value = time(d.lastHeardAt)
            node.child(forKey: "last_sync").value = time(d.lastSyncAt)
            node.child(forKey: "backlog_bytes").value = int(d.backlogBytes)
            node.child(forKey: "battery").value = int(d.battery)
            node.child(forKey: "wearing").value = int(d.wearing)
            node.child(forKey: "failures").value = .int(Int64(d.failures))
            node.child(forKey: "last_error").value = text(d.lastError)
            node.child(forKey: "sensor").value = text(d.sensor)
            node.child(forKey: "samples_kept").value = d.sensor == nil ? .null : .int(Int64(d.samplesKept))
            node.child(forKey: "last_sample").value = time(d.lastSampleAt)
            node.child(forKey: "link_security").value = text(d.linkSecurity?.rawValue)
        }
        let sinkList = root.child(forKey: "sinks")
        sinkList.value = .array
        for s in sinks {
            let node = sinkList.appendElement()
            node.value = .object
            node.child(forKey: "sink").value = .string(s.sink)
            node.child(forKey: "pending").value = .int(Int64(s.pending))
            node.child(forKey: "delivered").value = .int(Int64(s.delivered))
            node.child(forKey: "dead").value = .int(Int64(s.dead))
            let health = sinkHealth[s.sink]
            node.child(forKey: "state").value = text(health?.state.rawValue)
            node.child(forKey: "failures_in_a_row").value = health.map { .int(Int64($0.failuresInARow)) } ?? .null
            node.child(forKey: "last_attempt").value = time(health?.lastAttemptAt)
            node.child(forKey: "last_success").value = time(health?.lastSuccessAt)
            node.child(forKey: "last_error").value = text(health?.lastError)
        }
        let eventList = root.child(forKey: "events")
        eventList.value = .array
        for e in events {
            let node = eventList.appendElement()
            node.value = .object
            node.child(forKey: "key").value = .string(e.key)
            node.child(forKey: "event").value = .string(String(e.kind.dropFirst("event:".count)))
            node.child(forKey: "device").value = .string(e.device)
            node.child(forKey: "state").value = .string(e.state)
            node.child(forKey: "at").value = time(e.createdAt)
        }
        var out: [UInt8] = []
        CanonicalJSON.write(root, into: &out)
        return out
    }

    /// A sink's state for people: whether it works, since when it fails and why.
    static func line(_ health: SinkHealth) -> String {
        func time(_ value: Int64?) -> String { value.map { UTCTime.iso8601(unixMilliseconds: $0) } ?? "never" }
        switch health.state {
        case .ok:
            return "ok: last attempt \(time(health.lastAttemptAt)), last success \(time(health.lastSuccessAt))"
        case .failing, .paused:
            return "\(health.state == .paused ? "PAUSED" : "FAILING"): \(health.failuresInARow) failed attempt(s) in a row, last "
                + "\(time(health.lastAttemptAt)): \(health.lastError ?? "no reason recorded"); last success \(time(health.lastSuccessAt))"
        }
    }

    /// The status as text tables for people.
    public func table() -> String {
        func time(_ value: Int64?) -> String { value.map { UTCTime.iso8601(unixMilliseconds: $0) } ?? "never" }
        var lines = ["bracelets: \(devices.count)"]
        for d in devices {
            lines.append("  \(d.serial ?? "(serial not read yet)")  \(d.endpoint)  user \(d.user ?? "-")  \(d.state)")
            lines.append("    last heard \(time(d.lastHeardAt)), last sync \(time(d.lastSyncAt)), backlog "
                         + "\(d.backlogBytes.map { "\($0) bytes" } ?? "?"), battery \(d.battery.map { "\($0) %" } ?? "?"), "
                         + "\(d.failures) failure(s) in a row" + (d.lastError.map { " (last: \($0))" } ?? ""))
            if let sensor = d.sensor {
                lines.append("    \(sensor) sensor: \(d.samplesKept) second(s) with a value kept since enrolment, last value \(time(d.lastSampleAt))")
            }
            if d.endpoint.hasPrefix("ble:") {
                lines.append("    link security: " + (d.linkSecurity.map { "\($0.rawValue) required" } ?? "learned from what it answers"))
            }
        }
        lines.append("sinks:")
        for s in sinks {
            lines.append("  \(s.sink): \(s.pending) pending, \(s.delivered) delivered, \(s.dead) dead")
            if let health = sinkHealth[s.sink] { lines.append("    " + Self.line(health)) }
        }
        if !events.isEmpty {
            lines.append("latest operator events:")
            for e in events { lines.append("  \(time(e.createdAt))  \(e.kind.dropFirst("event:".count))  \(e.device)  (\(e.state))") }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
