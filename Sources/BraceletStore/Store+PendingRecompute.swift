extension Store {
    /// Records that the summaries of `dates` (local, `YYYY-MM-DD`) of `device` must be recomputed.
    ///
    /// Call it in the transaction that stores the rows which touched those days: then a process
    /// killed after that commit and before the recompute leaves the days listed, and whoever opens
    /// the file next recomputes them (``pendingRecompute()``), so no committed row is ever left out of
    /// its day's summaries. Recording a day twice keeps one record.
    public func markForRecompute(device: String, dates: some Sequence<String>) throws {
        try write { db in
            let deviceID = try upsertDevice(db, serial: device, model: nil)
            let statement = try db.prepare("INSERT OR IGNORE INTO pending_recompute (device_id, local_date) VALUES (?1, ?2)")
            for date in dates {
                statement.bind(deviceID, at: 1)
                statement.bind(date, at: 2)
                try statement.run()
            }
        }
    }

    /// The days recorded by ``markForRecompute(device:dates:)`` and not yet cleared, per device serial
    /// (devices and dates in order).
    public func pendingRecompute() throws -> [(device: String, dates: [String])] {
        try locked { db in
            let statement = try db.prepare("""
                SELECT d.serial, p.local_date FROM pending_recompute p JOIN devices d ON d.id = p.device_id
                ORDER BY d.serial, p.local_date
                """)
            var result: [(device: String, dates: [String])] = []
            while try statement.step() {
                guard let serial = statement.text(at: 0), let date = statement.text(at: 1) else { continue }
                if result.last?.device == serial { result[result.count - 1].dates.append(date) } else { result.append((serial, [date])) }
            }
            return result
        }
    }

    /// Clears the records of `dates` of `device`: call it in the transaction that stores their
    /// recomputed summaries, so the records go exactly when the summaries are durable.
    public func clearPendingRecompute(device: String, dates: some Sequence<String>) throws {
        try write { db in
            guard let deviceID = try deviceID(db, serial: device) else { return }
            let statement = try db.prepare("DELETE FROM pending_recompute WHERE device_id = ?1 AND local_date = ?2")
            for date in dates {
                statement.bind(deviceID, at: 1)
                statement.bind(date, at: 2)
                try statement.run()
            }
        }
    }
}
