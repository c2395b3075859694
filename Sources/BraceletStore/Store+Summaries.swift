import BraceletDecoder
import Foundation

/// What an upsert of a summary did.
public enum SummaryChange: Sendable, Equatable {
    /// The stored content was equal: nothing was written, no outbox entry.
    case unchanged(version: Int)
    /// The content is new or changed: stored as `version`, and outbox entry `outboxKey` was written in
    /// the same transaction.
    case changed(version: Int, outboxKey: String)

    /// The version now stored.
    public var version: Int {
        switch self {
        case let .unchanged(version), let .changed(version, _): version
        }
    }
}

/// A stored summary.
public struct StoredSummary: Sendable, Equatable {
    /// The local date (`YYYY-MM-DD`).
    public var localDate: String
    /// The summary kind (e.g. `daily`, `heart_rate`), as the caller named it.
    public var kind: String
    /// Version, bumped at each content change.
    public var version: Int
    /// Canonical JSON (sorted keys).
    public var json: Data
    /// SHA-256 hex of `json`.
    public var contentHash: String
}

/// A stored sleep session.
public struct StoredSleepSession: Sendable, Equatable {
    /// Start of the session, Unix seconds.
    public var start: Int64
    /// End of the session, Unix seconds.
    public var stop: Int64
    /// The local date the session is filed under (`YYYY-MM-DD`, usually the wake-up day).
    public var localDate: String
    /// Version, bumped at each content change.
    public var version: Int
    /// Canonical JSON (sorted keys).
    public var json: Data
    /// SHA-256 hex of `json`.
    public var contentHash: String
}

extension Store {
    /// Stores a day's summary of one kind, given as JSON (the summaries module's `Encodable` type,
    /// encoded). The JSON is canonicalised (sorted keys) before hashing.
    ///
    /// Only when the content hash differs from the stored one is the version bumped and an outbox
    /// entry `<device>/<localDate>/<kind>/v<version>` written, in the SAME transaction. Recomputing
    /// a day with equal content writes nothing.
    public func upsertDailySummary(device: String, localDate: String, kind: String, json: Data) throws -> SummaryChange {
        try validate(localDate: localDate, kind: kind)
        let canonical = try StoreJSON.canonicalize(json, what: "summary \(kind) of \(device) on \(localDate)")
        return try upsertDailySummary(device: device, localDate: localDate, kind: kind, canonical: [UInt8](canonical))
    }

    /// Stores already canonical bytes (see ``upsertDailySummary(device:localDate:kind:json:)``).
    /// `stamp` (nil: unknown) is written even when the content is unchanged; it never bumps the
    /// version or writes an outbox entry. `scoreInput` is asked only when an entry is written.
    func upsertDailySummary(device: String, localDate: String, kind: String, canonical: [UInt8],
                            stamp: SummaryStamp? = nil, scoreInput: () throws -> String? = { nil }) throws -> SummaryChange {
        try upsertDailySummary(device: device, localDate: localDate, kind: kind, document: CanonicalDocument(canonical: canonical),
                               stamp: stamp, scoreInput: scoreInput)
    }

    /// Stores a summary already in canonical JSON, like ``upsertDailySummary(device:localDate:kind:value:stamp:scoreInput:)``
    /// (see ``CanonicalDocument`` for why a caller makes the document itself).
    public func upsertDailySummary(device: String, localDate: String, kind: String, document: CanonicalDocument,
                                   stamp: SummaryStamp? = nil, scoreInput: () throws -> String? = { nil }) throws -> SummaryChange {
        try validate(localDate: localDate, kind: kind)
        let canonical = document.bytes, hash = document.contentHash
        return try write { db in
            let deviceID = try upsertDevice(db, serial: device, model: nil)
            let select = try db.prepare("SELECT version, content_hash FROM daily_summaries WHERE device_id = ?1 AND local_date = ?2 AND kind = ?3")
            select.bind(deviceID, at: 1)
            select.bind(localDate, at: 2)
            select.bind(kind, at: 3)
            var version = 1
            if try select.step() {
                let stored = select.int(at: 0) ?? 0
                if select.text(at: 1) == hash {
                    select.reset()
                    let restamp = try db.prepare("""
                        UPDATE daily_summaries SET basis = ?4, computed_at = ?5
                        WHERE device_id = ?1 AND local_date = ?2 AND kind = ?3 AND (basis IS NOT ?4 OR computed_at IS NOT ?5)
                        """)
                    restamp.bind(deviceID, at: 1)
                    restamp.bind(localDate, at: 2)
                    restamp.bind(kind, at: 3)
                    restamp.bind(stamp?.basis, at: 4)
                    restamp.bind(stamp?.computedAt, at: 5)
                    try restamp.run()
                    return .unchanged(version: stored)
                }
                version = stored + 1
            }
            select.reset()
            let upsert = try db.prepare("""
                INSERT INTO daily_summaries (device_id, local_date, kind, version, content_hash, updated_at, basis, computed_at)
                VALUES (?1, ?2, ?3, ?4, ?6, ?7, ?8, ?9)
                ON CONFLICT(device_id, local_date, kind) DO UPDATE SET version = excluded.version,
                    content_hash = excluded.content_hash, updated_at = excluded.updated_at,
                    basis = excluded.basis, computed_at = excluded.computed_at
                """)
            upsert.bind(stamp?.basis, at: 8)
            upsert.bind(stamp?.computedAt, at: 9)
            upsert.bind(deviceID, at: 1)
            upsert.bind(localDate, at: 2)
            upsert.bind(kind, at: 3)
            upsert.bind(version, at: 4)
            upsert.bind(hash, at: 6)
            upsert.bind(now(), at: 7)
            try upsert.run()
            let key = "\(device)/\(localDate)/\(kind)/v\(version)"
            try enqueue(db, key: key, kind: "daily:\(kind)", device: device, localDate: localDate, version: version,
                        contentHash: hash, summary: canonical, extra: [:], scoreInput: try scoreInput())
            return .changed(version: version, outboxKey: key)
        }
    }

    /// Encodes `value` in canonical JSON (``CanonicalJSON``, straight from its `Codable` conformance) and stores it like ``upsertDailySummary(device:localDate:kind:json:)``,
    /// with `stamp` saying what it was computed from (see ``SummaryStamp``; nil: unknown) and, when
    /// the content changed, `scoreInput` in its outbox entry (``OutboxEntry/scoreInput``; evaluated
    /// only then).
    public func upsertDailySummary<T: Encodable>(device: String, localDate: String, kind: String, value: T,
                                                 stamp: SummaryStamp? = nil,
                                                 scoreInput: @autoclosure () throws -> String? = nil) throws -> SummaryChange {
        try validate(localDate: localDate, kind: kind)
        return try upsertDailySummary(device: device, localDate: localDate, kind: kind,
                                      canonical: StoreJSON.bytes(of: value, what: "summary \(kind) of \(device) on \(localDate)"),
                                      stamp: stamp, scoreInput: scoreInput)
    }

    /// Stores one sleep session (keyed by device and start). Like daily summaries, a content change
    /// bumps the version and writes outbox entry `<device>/<localDate>/sleep_session@<start>/v<version>`
    /// in the same transaction; equal content writes nothing but `basis` (the settings it was
    /// computed with, see ``SummaryStamp/basis``; nil: unknown).
    public func upsertSleepSession(device: String, start: Int64, stop: Int64, localDate: String, json: Data,
                                   basis: String? = nil) throws -> SummaryChange {
        try validate(localDate: localDate, kind: "sleep_session")
        guard stop >= start else {
            throw StoreError.invalidInput("sleep session of \(device) ends (\(stop)) before it starts (\(start)); check the session boundaries.")
        }
        let canonical = try StoreJSON.canonicalize(json, what: "sleep session of \(device) starting \(start)")
        return try upsertSleepSession(device: device, start: start, stop: stop, localDate: localDate, canonical: [UInt8](canonical),
                                      basis: basis)
    }

    /// Encodes `value` in canonical JSON (``CanonicalJSON``) and stores it like
    /// ``upsertSleepSession(device:start:stop:localDate:json:)``, with `scoreInput` in its outbox
    /// entry when the content changed (evaluated only then).
    public func upsertSleepSession<T: Encodable>(device: String, start: Int64, stop: Int64, localDate: String, value: T,
                                                 basis: String? = nil,
                                                 scoreInput: @autoclosure () throws -> String? = nil) throws -> SummaryChange {
        try validate(localDate: localDate, kind: "sleep_session")
        guard stop >= start else {
            throw StoreError.invalidInput("sleep session of \(device) ends (\(stop)) before it starts (\(start)); check the session boundaries.")
        }
        return try upsertSleepSession(device: device, start: start, stop: stop, localDate: localDate,
                                      canonical: StoreJSON.bytes(of: value, what: "sleep session of \(device) starting \(start)"),
                                      basis: basis, scoreInput: scoreInput)
    }

    /// Stores already canonical bytes of a validated session.
    func upsertSleepSession(device: String, start: Int64, stop: Int64, localDate: String, canonical: [UInt8],
                            basis: String? = nil, scoreInput: () throws -> String? = { nil }) throws -> SummaryChange {
        let hash = SHA256.hex(canonical)
        return try write { db in
            let deviceID = try upsertDevice(db, serial: device, model: nil)
            let select = try db.prepare("SELECT version, content_hash, stop, local_date FROM sleep_sessions WHERE device_id = ?1 AND start = ?2")
            select.bind(deviceID, at: 1)
            select.bind(start, at: 2)
            var version = 1
            if try select.step() {
                let stored = select.int(at: 0) ?? 0
                if select.text(at: 1) == hash, select.int64(at: 2) == stop, select.text(at: 3) == localDate {
                    select.reset()
                    let restamp = try db.prepare("UPDATE sleep_sessions SET basis = ?3 WHERE device_id = ?1 AND start = ?2 AND basis IS NOT ?3")
                    restamp.bind(deviceID, at: 1)
                    restamp.bind(start, at: 2)
                    restamp.bind(basis, at: 3)
                    try restamp.run()
                    return .unchanged(version: stored)
                }
                version = stored + 1
            }
            select.reset()
            let upsert = try db.prepare("""
                INSERT INTO sleep_sessions (device_id, start, stop, local_date, version, content_hash, updated_at, basis)
                VALUES (?1, ?2, ?3, ?4, ?5, ?7, ?8, ?9)
                ON CONFLICT(device_id, start) DO UPDATE SET stop = excluded.stop, local_date = excluded.local_date,
                    version = excluded.version, content_hash = excluded.content_hash,
                    updated_at = excluded.updated_at, basis = excluded.basis
                """)
            upsert.bind(basis, at: 9)
            upsert.bind(deviceID, at: 1)
            upsert.bind(start, at: 2)
            upsert.bind(stop, at: 3)
            upsert.bind(localDate, at: 4)
            upsert.bind(version, at: 5)
            upsert.bind(hash, at: 7)
            upsert.bind(now(), at: 8)
            try upsert.run()
            let key = "\(device)/\(localDate)/sleep_session@\(start)/v\(version)"
            try enqueue(db, key: key, kind: "sleep_session", device: device, localDate: localDate, version: version,
                        contentHash: hash, summary: canonical, extra: ["start": start, "stop": stop],
                        scoreInput: try scoreInput())
            return .changed(version: version, outboxKey: key)
        }
    }

    /// The stored summary of `kind` for `device` on `localDate`, `nil` when none.
    public func dailySummary(device: String, localDate: String, kind: String) throws -> StoredSummary? {
        try dailySummaries(device: device, localDate: localDate).first { $0.kind == kind }
    }

    /// Every stored summary of `device` on `localDate`, ordered by kind.
    public func dailySummaries(device: String, localDate: String) throws -> [StoredSummary] {
        try locked { db in
            let statement = try db.prepare("""
                SELECT s.kind, s.version, s.content_hash, doc.size, doc.body FROM daily_summaries s JOIN devices d ON d.id = s.device_id
                \(Store.joinDocument("s")) WHERE d.serial = ?1 AND s.local_date = ?2 ORDER BY s.kind
                """)
            statement.bind(device, at: 1)
            statement.bind(localDate, at: 2)
            var result: [StoredSummary] = []
            while try statement.step() {
                let kind = statement.text(at: 0) ?? ""
                let json = try document(statement, sizeColumn: 3, what: "the \(kind) summary of \(device) on \(localDate)")
                result.append(StoredSummary(localDate: localDate, kind: kind, version: statement.int(at: 1) ?? 0,
                                            json: Data(json), contentHash: statement.text(at: 2) ?? ""))
            }
            return result
        }
    }

    /// The local dates (`YYYY-MM-DD`, sorted) on which `device` has any daily summary.
    public func summaryDates(device: String) throws -> [String] {
        try locked { db in
            let statement = try db.prepare("""
                SELECT DISTINCT s.local_date FROM daily_summaries s JOIN devices d ON d.id = s.device_id
                WHERE d.serial = ?1 ORDER BY s.local_date
                """)
            statement.bind(device, at: 1)
            var result: [String] = []
            while try statement.step() { if let date = statement.text(at: 0) { result.append(date) } }
            return result
        }
    }

    /// The sleep sessions of `device` filed under `localDate`, ordered by start.
    public func sleepSessions(device: String, localDate: String) throws -> [StoredSleepSession] {
        try locked { db in
            let statement = try db.prepare("""
                SELECT s.start, s.stop, s.version, s.content_hash, doc.size, doc.body FROM sleep_sessions s JOIN devices d ON d.id = s.device_id
                \(Store.joinDocument("s")) WHERE d.serial = ?1 AND s.local_date = ?2 ORDER BY s.start
                """)
            statement.bind(device, at: 1)
            statement.bind(localDate, at: 2)
            var result: [StoredSleepSession] = []
            while try statement.step() {
                let start = statement.int64(at: 0) ?? 0
                let json = try document(statement, sizeColumn: 4, what: "the sleep session of \(device) starting \(start)")
                result.append(StoredSleepSession(start: start, stop: statement.int64(at: 1) ?? 0, localDate: localDate,
                                                 version: statement.int(at: 2) ?? 0, json: Data(json),
                                                 contentHash: statement.text(at: 3) ?? ""))
            }
            return result
        }
    }

    /// Stores the vitality metrics (VitalityRawMetrics JSON) of `device` for `localDate`, replacing
    /// earlier ones. Returns `false` when the stored content was equal (nothing written).
    @discardableResult
    public func upsertVitalityMetrics(device: String, localDate: String, json: Data) throws -> Bool {
        try validate(localDate: localDate, kind: "vitality")
        let canonical = try StoreJSON.canonicalize(json, what: "vitality metrics of \(device) on \(localDate)")
        let hash = SHA256.hex(canonical)
        return try write { db in
            let deviceID = try upsertDevice(db, serial: device, model: nil)
            let statement = try db.prepare("""
                INSERT INTO vitality_metrics (device_id, local_date, json, content_hash, updated_at) VALUES (?1, ?2, ?3, ?4, ?5)
                ON CONFLICT(device_id, local_date) DO UPDATE SET json = excluded.json, content_hash = excluded.content_hash,
                    updated_at = excluded.updated_at WHERE vitality_metrics.content_hash <> excluded.content_hash
                """)
            statement.bind(deviceID, at: 1)
            statement.bind(localDate, at: 2)
            statement.bind(String(decoding: canonical, as: UTF8.self), at: 3)
            statement.bind(hash, at: 4)
            statement.bind(now(), at: 5)
            try statement.run()
            return db.changes > 0
        }
    }

    /// The vitality metrics JSON of `device` per local date in `[fromDate, toDate]` (inclusive,
    /// `YYYY-MM-DD`), ordered by date.
    public func vitalityMetrics(device: String, fromDate: String, toDate: String) throws -> [(localDate: String, json: Data)] {
        try locked { db in
            let statement = try db.prepare("""
                SELECT v.local_date, v.json FROM vitality_metrics v JOIN devices d ON d.id = v.device_id
                WHERE d.serial = ?1 AND v.local_date >= ?2 AND v.local_date <= ?3 ORDER BY v.local_date
                """)
            statement.bind(device, at: 1)
            statement.bind(fromDate, at: 2)
            statement.bind(toDate, at: 3)
            var result: [(localDate: String, json: Data)] = []
            while try statement.step() {
                result.append((statement.text(at: 0) ?? "", statement.data(at: 1) ?? Data()))
            }
            return result
        }
    }

    private func validate(localDate: String, kind: String) throws {
        guard LocalDates.isValid(localDate) else {
            throw StoreError.invalidInput("local date \"\(localDate)\" is not a calendar date written YYYY-MM-DD.")
        }
        guard !kind.isEmpty, !kind.contains("/") else {
            throw StoreError.invalidInput("summary kind \"\(kind)\" must be non-empty and contain no \"/\" (it is part of the outbox key).")
        }
    }
}
