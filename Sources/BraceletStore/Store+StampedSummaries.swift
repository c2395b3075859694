import Foundation

/// What a stored daily summary was computed from, written beside it so a reader can serve the
/// stored summary instead of recomputing it from the raw rows, and can tell when it may not.
public struct SummaryStamp: Sendable, Equatable {
    /// The settings the summary was computed with, as one text (the writer's fingerprint of its
    /// configuration; equal text means equal settings).
    public var basis: String
    /// The clock of the computation, Unix seconds: a day computed before it ended is "not over"
    /// in its summary, so it is stale once the day ends.
    public var computedAt: Int64

    /// A stamp.
    public init(basis: String, computedAt: Int64) {
        self.basis = basis
        self.computedAt = computedAt
    }
}

extension Store {
    /// Marks every sleep session of `device` filed under `localDate` as not current (NULL basis):
    /// call before storing the sessions a recompute of that date produced, so a session it no
    /// longer produces is not served as current. Changes no content, version or outbox entry.
    public func supersedeSleepSessions(device: String, localDate: String) throws {
        try write { db in
            guard let deviceID = try deviceID(db, serial: device) else { return }
            let statement = try db.prepare("UPDATE sleep_sessions SET basis = NULL WHERE device_id = ?1 AND local_date = ?2 AND basis IS NOT NULL")
            statement.bind(deviceID, at: 1)
            statement.bind(localDate, at: 2)
            try statement.run()
        }
    }

    /// The stored daily summaries of `kind` for `device` (every date, or only `date`), ordered by
    /// date, with their stamps, each still compressed: a reader that prints them one at a time
    /// unpacks each into one buffer (``DocumentReader``) instead of holding them all (20 MB a month).
    public func packedDailySummaries(device: String, kind: String, date: String? = nil) throws -> [PackedSummary] {
        try locked { db in
            let statement = try db.prepare("""
                SELECT s.local_date, s.content_hash, s.basis, s.computed_at, doc.size, doc.body FROM daily_summaries s
                JOIN devices d ON d.id = s.device_id \(Store.joinDocument("s"))
                WHERE d.serial = ?1 AND s.kind = ?2 AND (?3 IS NULL OR s.local_date = ?3) ORDER BY s.local_date
                """)
            statement.bind(device, at: 1)
            statement.bind(kind, at: 2)
            statement.bind(date, at: 3)
            var rows: [PackedSummary] = []
            while try statement.step() {
                let localDate = statement.text(at: 0) ?? ""
                var stamp: SummaryStamp?
                if let basis = statement.text(at: 2), let computedAt = statement.int64(at: 3) {
                    stamp = SummaryStamp(basis: basis, computedAt: computedAt)
                }
                let document = PackedDocument(statement, sizeColumn: 4, hash: statement.text(at: 1), path: path,
                                              what: "the \(kind) summary of \(device) on \(localDate)")
                rows.append(PackedSummary(localDate: localDate, stamp: stamp, document: document))
            }
            return rows
        }
    }

    /// The current sleep sessions of `device` computed with `basis` (every date, or only `date`),
    /// ordered by date and start.
    ///
    /// - Throws: ``StoreError/corrupt(path:detail:)`` when a session no longer matches its content hash.
    public func currentSleepSessions(device: String, basis: String, date: String? = nil) throws -> [StoredSleepSession] {
        try locked { db in
            let statement = try db.prepare("""
                SELECT s.start, s.stop, s.local_date, s.version, s.content_hash, doc.size, doc.body FROM sleep_sessions s
                JOIN devices d ON d.id = s.device_id \(Store.joinDocument("s"))
                WHERE d.serial = ?1 AND s.basis = ?2 AND (?3 IS NULL OR s.local_date = ?3) ORDER BY s.local_date, s.start
                """)
            statement.bind(device, at: 1)
            statement.bind(basis, at: 2)
            statement.bind(date, at: 3)
            var result: [StoredSleepSession] = []
            let reader = DocumentReader()
            while try statement.step() {
                let start = statement.int64(at: 0) ?? 0
                let hash = statement.text(at: 4) ?? ""
                let document = PackedDocument(statement, sizeColumn: 5, hash: hash, path: path, what: "the sleep session of \(device) starting \(start)")
                result.append(StoredSleepSession(start: start, stop: statement.int64(at: 1) ?? 0, localDate: statement.text(at: 2) ?? "",
                                                 version: statement.int(at: 3) ?? 0, json: Data(try reader.read(document)), contentHash: hash))
            }
            return result
        }
    }
}
