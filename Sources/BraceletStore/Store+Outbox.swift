import BraceletDecoder
import BraceletProtocol
import Foundation

extension Store {
    /// Writes an outbox entry inside the caller's transaction. The payload is an envelope carrying the
    /// summary snapshot, so later recomputes never change what this entry delivers: the summary is
    /// kept once, in `documents` under its content hash, and the stored envelope refers to it (see
    /// ``StoredEnvelope``). `scoreInput` (see ``OutboxEntry/scoreInput``) goes in the same row,
    /// written once with it.
    func enqueue(_ db: Database, key: String, kind: String, device: String, localDate: String, version: Int,
                 contentHash: String, summary: [UInt8], extra: [String: Int64], scoreInput: String?) throws {
        // The envelope is written by the canonical writer around the summary's canonical bytes as they
        // are (no parse and re-serialisation), with the same sorted keys as the summary itself.
        let envelope = CanonicalJSON.Node(.object)
        envelope.child(forKey: "key").value = .string(key)
        envelope.child(forKey: "kind").value = .string(kind)
        envelope.child(forKey: "device").value = .string(device)
        envelope.child(forKey: "local_date").value = .string(localDate)
        envelope.child(forKey: "version").value = .int(Int64(version))
        envelope.child(forKey: "content_hash").value = .string(contentHash)
        envelope.child(forKey: "summary").value = .canonical(StoredEnvelope.reference)
        for (name, value) in extra { envelope.child(forKey: name).value = .int(value) }
        var payload: [UInt8] = []
        CanonicalJSON.write(envelope, into: &payload)
        try storeDocument(db, hash: contentHash, canonical: summary)
        let created = now()
        let statement = try db.prepare("""
            INSERT INTO outbox (key, kind, device, local_date, version, content_hash, payload, state, attempts,
                next_attempt_at, created_at, user_id, score_input)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'pending', 0, ?8, ?8, (SELECT user_id FROM devices WHERE serial = ?3), ?9)
            """)
        statement.bind(key, at: 1)
        statement.bind(kind, at: 2)
        statement.bind(device, at: 3)
        statement.bind(localDate, at: 4)
        statement.bind(version, at: 5)
        statement.bind(contentHash, at: 6)
        statement.bind(utf8: payload, at: 7)
        statement.bind(created, at: 8)
        statement.bind(scoreInput, at: 9)
        try statement.run()
    }

    /// Whether `payload` is an envelope as ``enqueue(_:key:kind:device:localDate:version:contentHash:summary:extra:scoreInput:)``
    /// writes it for `key` (with the summary in place, see ``StoredEnvelope``), whose summary bytes
    /// hash to `hash`, checked without parsing the summary: a 0.6 MB day summary parsed and written
    /// again costs a delivery more than sending it. A digest of the bytes as stored equal to the
    /// content hash means they are the canonical bytes that were hashed. `false` means only "not in
    /// this layout": the caller decides with a full parse.
    static func envelopeMatches(key: String, hash: String, payload: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let summary = StoredEnvelope.summaryRange(in: payload),
              SHA256.hex(UnsafeBufferPointer(rebasing: payload[summary])) == hash else { return false }
        return headerMatches(key: key, hash: hash, payload: payload, summary: summary)
    }

    /// Whether the header of envelope `payload` (the fields before its summary, at `summary`) names
    /// `key` and `hash`.
    static func headerMatches(key: String, hash: String, payload: UnsafeBufferPointer<UInt8>, summary: Range<Int>) -> Bool {
        let header = Array(payload[..<(summary.lowerBound - #","summary":"#.utf8.count)]) + [UInt8(ascii: "}")]
        guard let parsed = try? CanonicalJSONParser.parse(header, what: "outbox payload header") else { return false }
        return parsed.string(forKey: "key") == key && parsed.string(forKey: "content_hash") == hash
    }

    private static let entryColumns = """
        o.id, o.key, o.kind, o.device, o.local_date, o.version, o.content_hash, o.payload, o.state, o.attempts,
        o.next_attempt_at, o.last_error, o.created_at, o.delivered_at, (SELECT d.user_id FROM devices d WHERE d.serial = o.device),
        o.score_input, doc.size, doc.body
        """

    /// Reads one outbox row. A state that is none of the three means the row (or the index that led
    /// here) is damaged: that is an error, never a guess, because a guessed `pending` would be sent
    /// again and again.
    private func readEntry(_ statement: Statement) throws -> OutboxEntry {
        let id = statement.int64(at: 0) ?? 0
        guard let state = statement.text(at: 8).flatMap(OutboxState.init(rawValue:)) else {
            throw unknownState(statement.text(at: 8), rows: "outbox row \(id) has")
        }
        return OutboxEntry(id: id, key: statement.text(at: 1) ?? "", kind: statement.text(at: 2) ?? "",
                           device: statement.text(at: 3) ?? "", localDate: statement.text(at: 4) ?? "",
                           version: statement.int(at: 5) ?? 0, contentHash: statement.text(at: 6) ?? "",
                           payload: try payload(statement, id: id), state: state,
                           attempts: statement.int(at: 9) ?? 0, nextAttemptAt: statement.int64(at: 10) ?? 0,
                           lastError: statement.text(at: 11), createdAt: statement.int64(at: 12) ?? 0,
                           deliveredAt: statement.int64(at: 13), user: statement.text(at: 14),
                           scoreInput: statement.text(at: 15))
    }

    /// The payload of the entry read by `statement`: the stored envelope with its document in place of
    /// the reference (an envelope stored whole, from before documents were kept once, as it is).
    ///
    /// - Throws: ``StoreError/corrupt(path:detail:)`` when the envelope refers to a document that is
    ///   missing or unreadable: an envelope without its summary must never be delivered.
    private func payload(_ statement: Statement, id: Int64) throws -> Data {
        let stored = statement.data(at: 7) ?? Data()
        let isReference = stored.withUnsafeBytes { raw in
            StoredEnvelope.summaryRange(in: raw.assumingMemoryBound(to: UInt8.self)).map { raw[$0].elementsEqual(StoredEnvelope.reference) } ?? false
        }
        guard isReference else { return stored }
        let summary = try document(statement, sizeColumn: 16, what: "outbox entry \(statement.text(at: 1) ?? String(id))")
        let envelope = stored.withUnsafeBytes { raw in
            summary.withUnsafeBytes { StoredEnvelope.resolve(raw.assumingMemoryBound(to: UInt8.self), summary: $0) }
        }
        return envelope.map { Data($0) } ?? stored
    }

    /// The error for rows whose state is none of the three: the file is damaged.
    private func unknownState(_ state: String?, rows: String) -> StoreError {
        StoreError.corrupt(path: path, detail: "\(rows) state \(state.map { "\"\($0)\"" } ?? "NULL"), not pending, delivered or dead")
    }

    /// SQL that is true when the row aliased `alias` is of a kind the filter bound as JSON array `?1`
    /// takes (`NULL` takes all); see ``OutboxKindFilter``.
    private static func takes(_ alias: String) -> String {
        """
        (?1 IS NULL OR \(alias).kind IN (SELECT value FROM json_each(?1))
            OR (CASE WHEN \(alias).kind LIKE 'daily:%' THEN substr(\(alias).kind, 7)
                     WHEN \(alias).kind = 'sleep_session' THEN 'sleep' END) IN (SELECT value FROM json_each(?1)))
        """
    }

    /// The earliest pending entry of every device among the kinds `filter` takes, ordered by when
    /// each may next be attempted.
    ///
    /// Only these heads may be attempted: a later entry of a device waits while an earlier one of the
    /// same device is pending, which keeps each device's queue in order.
    public func pendingOutboxHeads(filter: OutboxKindFilter = .all) throws -> [OutboxEntry] {
        try locked { db in
            let statement = try db.prepare("SELECT \(Store.entryColumns) FROM outbox o \(Store.joinDocument("o")) WHERE \(Store.isHead) ORDER BY o.next_attempt_at, o.id")
            statement.bind(filter.jsonArray, at: 1)
            var result: [OutboxEntry] = []
            while try statement.step() {
                let entry = try readEntry(statement)
                // The partial index says pending; the row must agree, or the file is damaged.
                guard entry.state == .pending else {
                    throw StoreError.corrupt(path: path, detail: "outbox entry \(entry.key) is listed as pending but its row says \(entry.state)")
                }
                result.append(entry)
            }
            return result
        }
    }

    /// The next pending entries the kinds `filter` takes that are due by `dueBy` (Unix ms), with an
    /// id above `afterID`, ordered by id: at most `limit` entries and, past the first, no more than
    /// `byteBudget` bytes of payload. A caller walks a whole backlog a bounded batch at a time by
    /// passing the last id it got, instead of holding every pending payload at once (a year of day
    /// summaries is 250 MB).
    public func pendingOutboxEntries(filter: OutboxKindFilter = .all, dueBy: Int64, afterID: Int64, limit: Int,
                                     byteBudget: Int = 16 << 20) throws -> [OutboxEntry] {
        try locked { db in
            let statement = try db.prepare("""
                SELECT \(Store.entryColumns) FROM outbox o \(Store.joinDocument("o"))
                WHERE o.state = 'pending' AND \(Store.takes("o")) AND o.next_attempt_at <= ?2 AND o.id > ?3 ORDER BY o.id
                """)
            statement.bind(filter.jsonArray, at: 1)
            statement.bind(dueBy, at: 2)
            statement.bind(afterID, at: 3)
            var result: [OutboxEntry] = []
            var bytes = 0
            while result.count < limit, bytes < byteBudget || result.isEmpty, try statement.step() {
                let entry = try readEntry(statement)
                bytes += entry.payload.count
                result.append(entry)
            }
            statement.reset()
            return result
        }
    }

    /// When each pending entry the kinds `filter` takes may next be attempted (Unix ms), without
    /// reading a payload; with `headsOnly`, only each device's first pending entry (what a sink that
    /// delivers each device's entries in order can attempt next, as ``pendingOutboxHeads(filter:)``).
    public func pendingAttemptTimes(filter: OutboxKindFilter = .all, headsOnly: Bool = false) throws -> [Int64] {
        try locked { db in
            let pending = headsOnly ? Store.isHead : "o.state = 'pending' AND \(Store.takes("o"))"
            let statement = try db.prepare("SELECT o.next_attempt_at FROM outbox o WHERE \(pending)")
            statement.bind(filter.jsonArray, at: 1)
            var result: [Int64] = []
            while try statement.step() { result.append(statement.int64(at: 0) ?? 0) }
            return result
        }
    }

    /// Outbox entries, optionally only those in `state`, ordered by id. With `payloads: false` each
    /// entry's ``OutboxEntry/payload`` is empty and no document is read: for listings (a year of dead
    /// day summaries is 250 MB of payload).
    public func outboxEntries(state: OutboxState? = nil, payloads: Bool = true) throws -> [OutboxEntry] {
        try locked { db in
            let columns = payloads ? Store.entryColumns : Store.entryColumns.replacingOccurrences(of: "o.payload", with: "NULL")
                .replacingOccurrences(of: "doc.size, doc.body", with: "NULL, NULL")
            let statement = try db.prepare("""
                SELECT \(columns) FROM outbox o \(payloads ? Store.joinDocument("o") : "") WHERE ?1 IS NULL OR o.state = ?1 ORDER BY o.id
                """)
            statement.bind(state?.rawValue, at: 1)
            var result: [OutboxEntry] = []
            while try statement.step() { result.append(try readEntry(statement)) }
            return result
        }
    }

    /// SQL that is true when row `o` is the earliest pending entry of its device among the kinds the
    /// filter bound as `?1` takes: the only entries the forwarder may attempt.
    private static let isHead = """
        o.state = 'pending' AND \(takes("o"))
        AND o.id = (SELECT min(p.id) FROM outbox p WHERE p.device = o.device AND p.state = 'pending' AND \(takes("p")))
        """

    /// The distinct kinds in the outbox (full names, e.g. `daily:daily`, `sleep_session`), sorted.
    public func outboxKinds() throws -> [String] {
        try locked { db in
            let statement = try db.prepare("SELECT DISTINCT kind FROM outbox ORDER BY kind")
            var result: [String] = []
            while try statement.step() { if let kind = statement.text(at: 0) { result.append(kind) } }
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
                case nil:
                    throw unknownState(statement.text(at: 0), rows: "\(count) outbox rows have")
                }
            }
            return counts
        }
    }

    /// Counts, pending entries per kind, the oldest pending entry, and the last success and failure
    /// of any sink, for the entries `filter` takes.
    public func outboxStatus(filter: OutboxKindFilter = .all) throws -> OutboxStatus {
        try locked { db in
            let statement = try db.prepare("""
                SELECT o.state, o.kind, count(*), min(o.created_at) FROM outbox o
                WHERE \(Store.takes("o")) GROUP BY o.state, o.kind
                """)
            statement.bind(filter.jsonArray, at: 1)
            var status = OutboxStatus(counts: OutboxCounts(pending: 0, delivered: 0, dead: 0), pendingByKind: [:])
            while try statement.step() {
                let count = statement.int(at: 2) ?? 0
                switch statement.text(at: 0).flatMap(OutboxState.init(rawValue:)) {
                case .pending:
                    status.counts.pending += count
                    status.pendingByKind[OutboxEntry.shortKind(of: statement.text(at: 1) ?? ""), default: 0] += count
                    status.oldestPendingCreatedAt = [status.oldestPendingCreatedAt, statement.int64(at: 3)].compactMap { $0 }.min()
                case .delivered: status.counts.delivered += count
                case .dead: status.counts.dead += count
                case nil:
                    throw unknownState(statement.text(at: 0), rows: "\(count) outbox rows have")
                }
            }
            // Entries behind a device's head wait for it, whatever their own time says.
            let next = try db.prepare("SELECT min(o.next_attempt_at) FROM outbox o WHERE \(Store.isHead)")
            next.bind(filter.jsonArray, at: 1)
            status.nextAttemptAt = try next.step() ? next.int64(at: 0) : nil
            status.lastSuccess = try lastLogRecord(db, outcomes: "'delivered', 'already_had'")
            status.lastFailure = try lastLogRecord(db, outcomes: "'transient_failure', 'configuration_failure', 'permanent_failure'")
            return status
        }
    }

    private func lastLogRecord(_ db: Database, outcomes: String) throws -> DeliveryLogRecord? {
        let statement = try db.prepare("""
            SELECT outbox_id, sink, attempt, at, outcome, http_status, error FROM delivery_log
            WHERE outcome IN (\(outcomes)) ORDER BY id DESC LIMIT 1
            """)
        return try statement.step() ? readLogRecord(statement) : nil
    }

    /// Checks the outbox table and its index with SQLite's `PRAGMA integrity_check(outbox)`.
    ///
    /// A damaged outbox can list an entry as pending that its row no longer says is pending, and the
    /// forwarder would then send it forever; checking before delivering turns that into a clear error.
    /// The check reads the outbox table and its index once (the delivery log is not read).
    ///
    /// - Throws: ``StoreError/corrupt(path:detail:)`` with SQLite's findings.
    public func checkOutboxIntegrity() throws {
        try locked { db in
            let statement = try db.prepare("PRAGMA integrity_check(outbox)")
            var problems: [String] = []
            while try statement.step() {
                if let line = statement.text(at: 0), line != "ok", !line.hasPrefix("*** in database") { problems.append(line) }
            }
            if !problems.isEmpty {
                throw StoreError.corrupt(path: path, detail: "outbox: " + problems.prefix(5).joined(separator: "; "))
            }
        }
    }

    /// Records that `sink` confirmed entry `entryID` (delivered, or already had it): the entry
    /// becomes delivered and the attempt goes to the delivery log, in one transaction. Call it only
    /// after the sink confirmed.
    ///
    /// - Throws: ``StoreError/corrupt(path:detail:)`` when the entry is no longer pending (its row
    ///   was damaged or changed underneath): recording nothing and going on would send it again.
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
            try requireOneChange(db, entryID: entryID)
            try log(db, entryID: entryID, sink: sink, attempt: attempt, at: at, outcome: outcome, httpStatus: httpStatus, error: nil)
        }
    }

    /// Records a failed attempt of entry `entryID`: the attempt count grows, `error` becomes the last
    /// error, and the entry either waits until `retryAt` (Unix ms) or, when `retryAt` is `nil`, moves
    /// to the dead letters. One transaction.
    ///
    /// - Throws: ``StoreError/corrupt(path:detail:)`` when the entry is no longer pending.
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
            try requireOneChange(db, entryID: entryID)
            try log(db, entryID: entryID, sink: sink, attempt: attempt, at: at, outcome: outcome, httpStatus: httpStatus, error: error)
        }
    }

    /// Moves every pending entry whose next attempt lies after `latest` (Unix ms) to `latest`, and
    /// returns how many moved. No retry is ever scheduled further out than the longest backoff, so
    /// a later time comes from a clock that was set back or a damaged value; left alone, it would
    /// hold its device's queue for as long as that time says (for `Int64.max`, forever).
    @discardableResult
    public func rescheduleOutbox(notAfter latest: Int64) throws -> Int {
        let condition = "state = 'pending' AND (typeof(next_attempt_at) <> 'integer' OR next_attempt_at > ?1)"
        // Read first: the forwarder asks every pass, and a write transaction would take the write lock
        // from an ingest for nothing.
        let any = try locked { db in
            let probe = try db.prepare("SELECT 1 FROM outbox WHERE \(condition) LIMIT 1")
            probe.bind(latest, at: 1)
            return try probe.step()
        }
        guard any else { return 0 }
        return try write { db in
            let statement = try db.prepare("UPDATE outbox SET next_attempt_at = ?1 WHERE \(condition)")
            statement.bind(latest, at: 1)
            try statement.run()
            return db.changes
        }
    }

    /// Puts dead entries back to pending with their attempt count reset, for after the cause was
    /// fixed: all of them, or only those with one of `keys`, and/or a local date in
    /// `[fromDate, toDate]` (`YYYY-MM-DD`, inclusive). Returns how many entries were requeued.
    @discardableResult
    public func requeueDeadEntries(keys: [String]? = nil, fromDate: String? = nil, toDate: String? = nil) throws -> Int {
        try reopen(state: .dead, keys: keys, fromDate: fromDate, toDate: toDate, filter: .all)
    }

    /// Puts delivered entries with a local date in `[fromDate, toDate]` (inclusive) of the kinds
    /// `filter` takes back to pending, so they are sent again with the same key and bytes (for a
    /// receiver that lost them; one that still has a key answers 409). Returns how many.
    @discardableResult
    public func resendDeliveredEntries(fromDate: String, toDate: String, filter: OutboxKindFilter = .all) throws -> Int {
        try reopen(state: .delivered, keys: nil, fromDate: fromDate, toDate: toDate, filter: filter)
    }

    private func reopen(state: OutboxState, keys: [String]?, fromDate: String?, toDate: String?, filter: OutboxKindFilter) throws -> Int {
        for date in [fromDate, toDate].compactMap({ $0 }) where !LocalDates.isValid(date) {
            throw StoreError.invalidInput("date \"\(date)\" is not a calendar date written YYYY-MM-DD.")
        }
        let keyList = try keys.map { String(decoding: try StoreJSON.bytes(of: $0, what: "the outbox keys"), as: UTF8.self) }
        return try write { db in
            let statement = try db.prepare("""
                UPDATE outbox SET state = 'pending', attempts = 0, next_attempt_at = ?2, last_error = NULL, delivered_at = NULL
                WHERE state = ?3 AND \(Store.takes("outbox"))
                  AND (?4 IS NULL OR key IN (SELECT value FROM json_each(?4)))
                  AND (?5 IS NULL OR local_date >= ?5) AND (?6 IS NULL OR local_date <= ?6)
                """)
            statement.bind(filter.jsonArray, at: 1)
            statement.bind(now(), at: 2)
            statement.bind(state.rawValue, at: 3)
            statement.bind(keyList, at: 4)
            statement.bind(fromDate, at: 5)
            statement.bind(toDate, at: 6)
            try statement.run()
            return db.changes
        }
    }

    /// Assigns device `serial` to study participant `user`, or takes the device away from its
    /// participant when `user` is nil, adding the device when the
    /// store has not seen it yet. Every delivery from now on, re-sends of older entries included,
    /// carries the device's participant at the time it is sent (``OutboxEntry/user``); each
    /// pending entry's `user_id` is stamped too, as the record of who the device was assigned to.
    /// Returns how many pending entries the device has (they carry the new participant). The id's
    /// form is checked here (``UserID/isWellFormed(_:)``); the personal data it may not carry, by
    /// the command that takes it (``UserID/check(_:allowingPersonalData:)``).
    @discardableResult
    public func setUser(_ user: String?, device serial: String) throws -> Int {
        if let user, !UserID.isWellFormed(user) { throw StoreError.invalidInput(UserIDError.malformed(user).description) }
        return try write { db in
            _ = try deviceIDCreating(db, serial: serial)
            let device = try db.prepare("UPDATE devices SET user_id = ?1 WHERE serial = ?2")
            device.bind(user, at: 1)
            device.bind(serial, at: 2)
            try device.run()
            let pending = try db.prepare("UPDATE outbox SET user_id = ?1 WHERE device = ?2 AND state = 'pending'")
            pending.bind(user, at: 1)
            pending.bind(serial, at: 2)
            try pending.run()
            return db.changes
        }
    }

    /// The study participant device `serial` is assigned to, `nil` when none (or no such device).
    public func user(ofDevice serial: String) throws -> String? {
        try locked { db in
            let statement = try db.prepare("SELECT user_id FROM devices WHERE serial = ?1")
            statement.bind(serial, at: 1)
            return try statement.step() ? statement.text(at: 0) : nil
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
            while try statement.step() { result.append(readLogRecord(statement)) }
            return result
        }
    }

    private func readLogRecord(_ statement: Statement) -> DeliveryLogRecord {
        DeliveryLogRecord(outboxID: statement.int64(at: 0) ?? 0, sink: statement.text(at: 1) ?? "",
                          attempt: statement.int(at: 2) ?? 0, at: statement.int64(at: 3) ?? 0,
                          outcome: statement.text(at: 4) ?? "", httpStatus: statement.int(at: 5),
                          error: statement.text(at: 6))
    }

    /// The number of the attempt being recorded. A stored count is only bookkeeping: a damaged one
    /// (negative, or so large that adding one overflows) does not stop the delivery.
    private func nextAttemptNumber(_ db: Database, entryID: Int64) throws -> Int {
        let statement = try db.prepare("SELECT attempts FROM outbox WHERE id = ?1")
        statement.bind(entryID, at: 1)
        guard try statement.step() else { throw StoreError.noSuchOutboxEntry(id: entryID) }
        let stored = max(0, statement.int(at: 0) ?? 0)
        return stored == Int.max ? Int.max : stored + 1
    }

    private func requireOneChange(_ db: Database, entryID: Int64) throws {
        guard db.changes == 1 else {
            throw StoreError.corrupt(path: path, detail: "outbox entry \(entryID) was attempted as pending but its row is not pending")
        }
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
