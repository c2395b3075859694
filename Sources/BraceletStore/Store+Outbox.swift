import Foundation

extension Store {
    /// Writes an outbox entry inside the caller's transaction. The payload is an envelope carrying the
    /// summary snapshot, so later recomputes never change what this entry delivers.
    func enqueue(_ db: Database, key: String, kind: String, device: String, localDate: String, version: Int,
                 contentHash: String, summary: [UInt8], extra: [String: Int64]) throws {
        // The envelope is written by the canonical writer around the summary's canonical bytes as they
        // are (no parse and re-serialisation), with the same sorted keys as the summary itself.
        let envelope = CanonicalJSON.Node(.object)
        envelope.child(forKey: "key").value = .string(key)
        envelope.child(forKey: "kind").value = .string(kind)
        envelope.child(forKey: "device").value = .string(device)
        envelope.child(forKey: "local_date").value = .string(localDate)
        envelope.child(forKey: "version").value = .int(Int64(version))
        envelope.child(forKey: "content_hash").value = .string(contentHash)
        envelope.child(forKey: "summary").value = .canonical(summary)
        for (name, value) in extra { envelope.child(forKey: name).value = .int(value) }
        var payload: [UInt8] = []
        CanonicalJSON.write(envelope, into: &payload)
        let created = now()
        let statement = try db.prepare("""
            INSERT INTO outbox (key, kind, device, local_date, version, content_hash, payload, state, attempts,
                next_attempt_at, created_at)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'pending', 0, ?8, ?8)
            """)
        statement.bind(key, at: 1)
        statement.bind(kind, at: 2)
        statement.bind(device, at: 3)
        statement.bind(localDate, at: 4)
        statement.bind(version, at: 5)
        statement.bind(contentHash, at: 6)
        statement.bind(String(decoding: payload, as: UTF8.self), at: 7)
        statement.bind(created, at: 8)
        try statement.run()
    }

    private static let entryColumns = """
        id, key, kind, device, local_date, version, content_hash, payload, state, attempts, next_attempt_at,
        last_error, created_at, delivered_at
        """

    private func readEntry(_ statement: Statement) -> OutboxEntry {
        OutboxEntry(id: statement.int64(at: 0) ?? 0, key: statement.text(at: 1) ?? "", kind: statement.text(at: 2) ?? "",
                    device: statement.text(at: 3) ?? "", localDate: statement.text(at: 4) ?? "",
                    version: statement.int(at: 5) ?? 0, contentHash: statement.text(at: 6) ?? "",
                    payload: statement.data(at: 7) ?? Data(),
                    state: statement.text(at: 8).flatMap(OutboxState.init(rawValue:)) ?? .pending,
                    attempts: statement.int(at: 9) ?? 0, nextAttemptAt: statement.int64(at: 10) ?? 0,
                    lastError: statement.text(at: 11), createdAt: statement.int64(at: 12) ?? 0,
                    deliveredAt: statement.int64(at: 13))
    }

    /// The earliest pending entry of every device, ordered by when each may next be attempted.
    ///
    /// Only these heads may be attempted: a later entry of a device waits while an earlier one of the
    /// same device is pending, which keeps each device's queue in order.
    public func pendingOutboxHeads() throws -> [OutboxEntry] {
        try locked { db in
            let statement = try db.prepare("""
                SELECT \(Store.entryColumns) FROM outbox o
                WHERE o.state = 'pending'
                  AND o.id = (SELECT min(p.id) FROM outbox p WHERE p.device = o.device AND p.state = 'pending')
                ORDER BY o.next_attempt_at, o.id
                """)
            var result: [OutboxEntry] = []
            while try statement.step() { result.append(readEntry(statement)) }
            return result
        }
    }

    /// Outbox entries, optionally only those in `state`, ordered by id.
    public func outboxEntries(state: OutboxState? = nil) throws -> [OutboxEntry] {
        try locked { db in
            let statement = try db.prepare("SELECT \(Store.entryColumns) FROM outbox WHERE ?1 IS NULL OR state = ?1 ORDER BY id")
            statement.bind(state?.rawValue, at: 1)
            var result: [OutboxEntry] = []
            while try statement.step() { result.append(readEntry(statement)) }
            return result
        }
    }

    /// How many entries are pending, delivered and dead.
    public func outboxCounts() throws -> OutboxCounts {
        try locked { db in
            let statement = try db.prepare("SELECT state, count(*) FROM outbox GROUP BY state")
            var counts = OutboxCounts(pending: 0, delivered: 0, dead: 0)
            while try statement.step() {
                let count = statement.int(at: 1) ?? 0
                switch statement.text(at: 0).flatMap(OutboxState.init(rawValue:)) {
                case .pending: counts.pending = count
                case .delivered: counts.delivered = count
                case .dead: counts.dead = count
                case nil: break
                }
            }
            return counts
        }
    }

    /// Records that `sink` confirmed entry `entryID` (delivered, or already had it): the entry
    /// becomes delivered and the attempt goes to the delivery log, in one transaction. Call it only
    /// after the sink confirmed.
    public func recordDelivered(entryID: Int64, sink: String, outcome: String, httpStatus: Int?, at: Int64) throws {
        try write { db in
            let attempt = try nextAttemptNumber(db, entryID: entryID)
            let update = try db.prepare("""
                UPDATE outbox SET state = 'delivered', attempts = ?2, delivered_at = ?3, last_error = NULL
                WHERE id = ?1 AND state = 'pending'
                """)
            update.bind(entryID, at: 1)
            update.bind(attempt, at: 2)
            update.bind(at, at: 3)
            try update.run()
            try log(db, entryID: entryID, sink: sink, attempt: attempt, at: at, outcome: outcome, httpStatus: httpStatus, error: nil)
        }
    }

    /// Records a failed attempt of entry `entryID`: the attempt count grows, `error` becomes the last
    /// error, and the entry either waits until `retryAt` (Unix ms) or, when `retryAt` is `nil`, moves
    /// to the dead letters. One transaction.
    public func recordFailedAttempt(entryID: Int64, sink: String, outcome: String, error: String, httpStatus: Int?,
                                    at: Int64, retryAt: Int64?) throws {
        try write { db in
            let attempt = try nextAttemptNumber(db, entryID: entryID)
            let update = try db.prepare("""
                UPDATE outbox SET attempts = ?2, last_error = ?3, next_attempt_at = coalesce(?4, next_attempt_at),
                    state = CASE WHEN ?4 IS NULL THEN 'dead' ELSE 'pending' END
                WHERE id = ?1 AND state = 'pending'
                """)
            update.bind(entryID, at: 1)
            update.bind(attempt, at: 2)
            update.bind(error, at: 3)
            update.bind(retryAt, at: 4)
            try update.run()
            try log(db, entryID: entryID, sink: sink, attempt: attempt, at: at, outcome: outcome, httpStatus: httpStatus, error: error)
        }
    }

    /// Puts every dead entry back to pending with its attempt count reset, for after the cause was
    /// fixed. Returns how many entries were requeued.
    @discardableResult
    public func requeueDeadEntries() throws -> Int {
        try write { db in
            let statement = try db.prepare("UPDATE outbox SET state = 'pending', attempts = 0, next_attempt_at = ?1 WHERE state = 'dead'")
            statement.bind(now(), at: 1)
            try statement.run()
            return db.changes
        }
    }

    /// The delivery log of entry `entryID`, oldest attempt first.
    public func deliveryLog(entryID: Int64) throws -> [DeliveryLogRecord] {
        try locked { db in
            let statement = try db.prepare("""
                SELECT outbox_id, sink, attempt, at, outcome, http_status, error FROM delivery_log WHERE outbox_id = ?1 ORDER BY id
                """)
            statement.bind(entryID, at: 1)
            var result: [DeliveryLogRecord] = []
            while try statement.step() {
                result.append(DeliveryLogRecord(outboxID: statement.int64(at: 0) ?? 0, sink: statement.text(at: 1) ?? "",
                                                attempt: statement.int(at: 2) ?? 0, at: statement.int64(at: 3) ?? 0,
                                                outcome: statement.text(at: 4) ?? "", httpStatus: statement.int(at: 5),
                                                error: statement.text(at: 6)))
            }
            return result
        }
    }

    private func nextAttemptNumber(_ db: Database, entryID: Int64) throws -> Int {
        let statement = try db.prepare("SELECT attempts FROM outbox WHERE id = ?1")
        statement.bind(entryID, at: 1)
        guard try statement.step() else { throw StoreError.noSuchOutboxEntry(id: entryID) }
        return (statement.int(at: 0) ?? 0) + 1
    }

    private func log(_ db: Database, entryID: Int64, sink: String, attempt: Int, at: Int64, outcome: String,
                     httpStatus: Int?, error: String?) throws {
        let statement = try db.prepare("""
            INSERT INTO delivery_log (outbox_id, sink, attempt, at, outcome, http_status, error) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
            """)
        statement.bind(entryID, at: 1)
        statement.bind(sink, at: 2)
        statement.bind(attempt, at: 3)
        statement.bind(at, at: 4)
        statement.bind(outcome, at: 5)
        statement.bind(httpStatus, at: 6)
        statement.bind(error, at: 7)
        try statement.run()
    }
}
