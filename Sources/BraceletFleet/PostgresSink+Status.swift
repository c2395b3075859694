import BraceletVitality

extension PostgresSink {
    /// Writes what the gateway knows of its devices and sinks (`status`) into the fleet database in
    /// one transaction, on the sink's thread: a `fleet_device_status` row per device assigned to
    /// this role and a `fleet_gateway_sinks` row per sink, each under the role's name (its rows of
    /// sinks and devices the report does not name, older than it, are removed). A row read earlier than the one stored is left as it is (newest wins, by the gateway's clock; a device
    /// moved to this gateway takes this gateway's status whatever the other's clock said). Devices
    /// not assigned to this role are left out: the server would refuse them, and their status
    /// waits until the fleet operator assigns them. Returns the devices written.
    ///
    /// - Throws: ``FleetError`` as a delivery would (then nothing was written), `CancellationError`
    ///   when the calling task is cancelled.
    public func report(_ status: StudyGatewayStatus) async throws -> Int {
        try await onWorker { interrupt in
            try self.lock.withLock {
                let refused = try self.unassigned(among: Set(status.devices.map(\.device)), interrupt: interrupt)
                let devices = status.devices.filter { refused[$0.device] == nil }.sorted { $0.device < $1.device }
                let sinks = status.sinks.sorted { $0.name < $1.name }
                try self.inTransaction { connection in
                    for start in stride(from: 0, to: devices.count, by: Self.rowsPerStatement) {
                        let chunk = devices[start..<min(devices.count, start + Self.rowsPerStatement)]
                        try connection.execute(Self.deviceStatusUpsert(rows: chunk.count), chunk.flatMap { Self.parameters($0, at: status.at) })
                    }
                    if !sinks.isEmpty {
                        try connection.execute(Self.sinkUpsert(rows: sinks.count), sinks.flatMap { Self.parameters($0, at: status.at) })
                    }
                    // The report is the gateway's whole status: a sink it no longer has (the
                    // placeholder before its first delivery, a sink given up) or a device no longer
                    // enrolled there goes.
                    for table in ["fleet_gateway_sinks", "fleet_device_status"] {
                        try connection.execute(Self.gone(from: table), [String(status.at)])
                    }
                }
                return devices.count
            }
        }
    }

    /// A time parameter (Unix ms, as text) as a `timestamptz`, to the millisecond.
    static let time = "(timestamptz 'epoch' + $::bigint * interval '1 millisecond')"

    /// The upsert of `rows` devices' status (parameters: ``parameters(_:at:)-(StudyDeviceStatus,_)``).
    static func deviceStatusUpsert(rows: Int) -> String {
        """
        INSERT INTO fleet_device_status AS t (device, gateway, user_id, model, state, last_heard_at, last_sync_at, battery,
            battery_change, backlog_bytes, open_events, reported_at)
        VALUES \(FleetRow.values(rows: rows, columns: ["$", "current_user::text", "$", "$", "$", time, time, "$::integer", "$::integer",
                                                         "$::bigint", "coalesce(string_to_array($, ' '), '{}')", time]))
        ON CONFLICT (device) DO UPDATE SET gateway = excluded.gateway, user_id = excluded.user_id, model = excluded.model,
            state = excluded.state, last_heard_at = excluded.last_heard_at, last_sync_at = excluded.last_sync_at,
            battery = excluded.battery, battery_change = excluded.battery_change, backlog_bytes = excluded.backlog_bytes,
            open_events = excluded.open_events, reported_at = excluded.reported_at, received_at = now()
        WHERE t.gateway <> excluded.gateway OR t.reported_at <= excluded.reported_at
        """
    }

    /// The upsert of `rows` sinks of this role (parameters: ``parameters(_:at:)-(StudySink,_)``).
    static func sinkUpsert(rows: Int) -> String {
        """
        INSERT INTO fleet_gateway_sinks AS t (gateway, sink, pending, delivered, dead, state, failures_in_a_row, last_attempt_at,
            last_success_at, last_error, reported_at)
        VALUES \(FleetRow.values(rows: rows, columns: ["current_user::text", "$", "$::integer", "$::integer", "$::integer", "$",
                                                         "$::integer", time, time, "$", time]))
        ON CONFLICT (gateway, sink) DO UPDATE SET pending = excluded.pending, delivered = excluded.delivered, dead = excluded.dead,
            state = excluded.state, failures_in_a_row = excluded.failures_in_a_row, last_attempt_at = excluded.last_attempt_at,
            last_success_at = excluded.last_success_at, last_error = excluded.last_error, reported_at = excluded.reported_at,
            received_at = now()
        WHERE t.reported_at <= excluded.reported_at
        """
    }

    /// The removal of this role's rows of `table` a report read at `$1` (Unix ms) did not name:
    /// theirs are older than it.
    static func gone(from table: String) -> String {
        "DELETE FROM \(table) WHERE gateway = current_user::text AND reported_at < " + time.replacingOccurrences(of: "$", with: "$1")
    }

    /// A device's status row read at `at` (Unix ms).
    static func parameters(_ device: StudyDeviceStatus, at: Int64) -> [String?] {
        let h = device.health
        return [device.device, device.user, device.model, h.state, h.lastHeardAt.map(String.init), h.lastSyncAt.map(String.init),
                h.battery.map(String.init), h.batteryChange.map(String.init), h.backlogBytes.map(String.init),
                h.openEvents.joined(separator: " "), String(at)]
    }

    /// A sink's row read at `at` (Unix ms).
    static func parameters(_ sink: StudySink, at: Int64) -> [String?] {
        let h = sink.health
        return [sink.name, String(sink.pending), String(sink.delivered), String(sink.dead), h?.state.rawValue,
                h.map { String($0.failuresInARow) }, h.map { String($0.lastAttemptAt) }, h?.lastSuccessAt.map(String.init), h?.lastError,
                String(at)]
    }
}
