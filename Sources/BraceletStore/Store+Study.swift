extension Store {
    /// The battery percent of `device`'s latest slot that has one, and of its latest slot at least
    /// `seconds` before that one (Unix seconds and percent); `nil` when no slot has a battery. Two
    /// reads down the slots' primary key from the end, whatever the history's length.
    public func batteryReadings(device: String, apart seconds: Int64 = 86_400) throws
        -> (latest: (at: Int64, percent: Int), earlier: (at: Int64, percent: Int)?)? {
        try locked { db in
            guard let id = try deviceID(db, serial: device) else { return nil }
            let statement = try db.prepare("""
                SELECT start, battery FROM slots WHERE device_id = ?1 AND start <= ?2 AND battery IS NOT NULL
                ORDER BY start DESC LIMIT 1
                """)
            func reading(before limit: Int64) throws -> (at: Int64, percent: Int)? {
                statement.reset()
                statement.bind(id, at: 1)
                statement.bind(limit, at: 2)
                guard try statement.step(), let at = statement.int64(at: 0), let percent = statement.int(at: 1) else { return nil }
                return (at, percent)
            }
            guard let latest = try reading(before: Int64.max) else { return nil }
            return (latest, try reading(before: latest.at - seconds))
        }
    }

    /// The newest operator event (outbox kind `event:NAME`) of each device and name: its key (which
    /// names the occurrence), kind, device and when it was written (Unix ms). Read through the
    /// outbox's key index (every event key starts `event:`), not the summaries' payloads.
    public func latestOperatorEvents() throws -> [(key: String, kind: String, device: String, createdAt: Int64)] {
        try locked { db in
            let statement = try db.prepare("""
                SELECT key, kind, device, created_at FROM outbox WHERE key >= 'event:' AND key < 'event;' ORDER BY id
                """)
            var newest: [String: (key: String, kind: String, device: String, createdAt: Int64)] = [:]
            var order: [String] = []
            while try statement.step() {
                let row = (key: statement.text(at: 0) ?? "", kind: statement.text(at: 1) ?? "", device: statement.text(at: 2) ?? "",
                           createdAt: statement.int64(at: 3) ?? 0)
                guard row.kind.hasPrefix("event:") else { continue }
                let slot = row.device + "\u{0}" + row.kind
                if newest[slot] == nil { order.append(slot) }
                newest[slot] = row
            }
            return order.compactMap { newest[$0] }
        }
    }
}
