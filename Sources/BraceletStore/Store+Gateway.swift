import BraceletDecoder
import BraceletProtocol
import Foundation

/// One bracelet a gateway keeps synced: where it is reached, the person's settings given at
/// enrolment until a sync has written them into the bracelet's participant record, and what the
/// gateway last learnt of it (table `gateway_enrolments`).
public struct GatewayEnrolment: Sendable, Equatable {
    /// `ble:AA:BB:CC:DD:EE:FF` or `unix:PATH`.
    public var endpoint: String
    /// `public` or `random` for a `ble:` endpoint; `nil`: learnt from its advertisement.
    public var addressType: String?
    /// Study participant id, when given.
    public var user: String?
    /// The participant settings given at enrolment (the options of `bracelet person set`), as the
    /// participant record stores them: setting -> text. Only the settings given are present.
    public var settings: [ParticipantSettingName: String] = [:]
    /// The time zone setting of ``settings`` (an IANA name, UTC or an offset), when given.
    public var timeZone: String? {
        get { settings[.timeZone] }
        set { settings[.timeZone] = newValue }
    }
    /// The age setting of ``settings``, when given.
    public var age: Int? {
        get { settings[.age].flatMap { Int($0) } }
        set { settings[.age] = newValue.map(String.init) }
    }
    /// The maximum heart rate setting of ``settings``, when given.
    public var hrMax: Int? {
        get { settings[.hrMax].flatMap { Int($0) } }
        set { settings[.hrMax] = newValue.map(String.init) }
    }
    /// Passkey to enter when the bracelet asks for one, when given.
    public var passkey: Int?
    /// The link the device needs, once given or learned (``Store/raiseEnrolledLinkSecurity(endpoint:to:)``);
    /// `nil`: learned from what it answers. Not written by ``Store/enrol(_:)``.
    public var linkSecurity: EnrolledLinkSecurity?
    /// When it was enrolled (Unix ms).
    public var enrolledAt: Int64 = 0
    /// The bracelet's serial, once a sync read it.
    public var serial: String?
    /// `enrolled`, `syncing`, `synced`, `failing` or `out_of_range`.
    public var state = "enrolled"
    /// Last advertisement heard or connection made (Unix ms, gateway clock).
    public var lastHeardAt: Int64?
    /// Last completed sync (Unix ms, gateway clock).
    public var lastSyncAt: Int64?
    /// Last attempt (Unix ms, gateway clock).
    public var lastAttemptAt: Int64?
    /// Consecutive failed syncs.
    public var failures = 0
    /// Why the last attempt failed.
    public var lastError: String?
    /// Battery percent at the last connection.
    public var battery: Int?
    /// Wearing state (0-4) at the last connection.
    public var wearing: Int?
    /// Bytes waiting on the bracelet at its last connection.
    public var backlogBytes: Int?
    /// The UTC offset last set on its clock, minutes.
    public var offsetMinutes: Int?
    /// For a standard health sensor, the profiles it streams (`heart-rate`, `pulse-oximeter`,
    /// `thermometer`, joined by `+`), once a session found it is one; `nil` for a bracelet.
    public var sensor: String?
    /// A sensor's seconds with a value stored since it was enrolled.
    public var samplesKept = 0
    /// Arrival of a sensor's latest value (Unix ms, gateway clock).
    public var lastSampleAt: Int64?

    /// An enrolment of `endpoint` with the person's settings (`settings`, to which `timeZone`,
    /// `age` and `hrMax` are added when given).
    public init(endpoint: String, addressType: String? = nil, user: String? = nil, timeZone: String? = nil, age: Int? = nil,
                hrMax: Int? = nil, passkey: Int? = nil, settings: [ParticipantSettingName: String] = [:]) {
        self.endpoint = endpoint
        self.addressType = addressType
        self.user = user
        self.settings = settings
        if let timeZone { self.timeZone = timeZone }
        if let age { self.age = age }
        if let hrMax { self.hrMax = hrMax }
        self.passkey = passkey
    }
}

/// What one sync attempt learnt, written back to its enrolment row.
public struct GatewayAttempt: Sendable, Equatable {
    /// When the attempt ended (Unix ms, gateway clock).
    public var at: Int64
    /// Whether it completed (every file transferred, committed and erased, days recomputed).
    public var completed: Bool
    /// Whether the bracelet answered at all (a connection was made).
    public var heard: Bool
    /// The serial it reported.
    public var serial: String?
    /// Battery percent, wearing state, bytes waiting, the offset set.
    public var battery: Int?, wearing: Int?, backlogBytes: Int?, offsetMinutes: Int?
    /// Why it failed.
    public var error: String?

    /// An attempt ending at `at`.
    public init(at: Int64, completed: Bool, heard: Bool) {
        self.at = at
        self.completed = completed
        self.heard = heard
    }
}

/// Deliveries per sink, as the delivery log records them.
public struct SinkCounts: Sendable, Equatable {
    /// The sink's name (`webhook URL`, `jsonl PATH`, ...); `outbox` before any delivery was tried.
    public var sink: String
    /// Entries pending (shared by every sink: one outbox).
    public var pending: Int
    /// Entries this sink confirmed.
    public var delivered: Int
    /// Entries this sink refused for good (dead letters).
    public var dead: Int

    /// The counts of `sink`.
    public init(sink: String, pending: Int, delivered: Int, dead: Int) {
        self.sink = sink
        self.pending = pending
        self.delivered = delivered
        self.dead = dead
    }
}

extension Store {
    /// Enrols a bracelet, or updates the settings of one enrolled before: only the settings given
    /// replace stored ones, so a setting given once is never dropped by a later call; an age given
    /// without a maximum heart rate drops a pending maximum, as `person set` does in the record.
    /// Returns whether it was new.
    public func enrol(_ enrolment: GatewayEnrolment) throws -> Bool {
        if let user = enrolment.user, !UserID.isWellFormed(user) { throw StoreError.invalidInput(UserIDError.malformed(user).description) }
        do { try OperatorText.check(enrolment.endpoint, what: "the endpoint") } catch { throw StoreError.invalidInput(error.description) }
        return try write { db in
            let existing = try db.prepare("SELECT settings FROM gateway_enrolments WHERE endpoint = ?1")
            existing.bind(enrolment.endpoint, at: 1)
            let isNew = try !existing.step()
            var settings = isNew ? [:] : try Self.enrolmentSettings(existing.text(at: 0), endpoint: enrolment.endpoint)
            if enrolment.settings[.age] != nil, enrolment.settings[.hrMax] == nil { settings[.hrMax] = nil }
            settings.merge(enrolment.settings) { _, given in given }
            let statement = try db.prepare("""
                INSERT INTO gateway_enrolments (endpoint, address_type, user_id, settings, passkey, enrolled_at)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                ON CONFLICT (endpoint) DO UPDATE SET
                    address_type = coalesce(excluded.address_type, address_type), user_id = coalesce(excluded.user_id, user_id),
                    settings = excluded.settings, passkey = coalesce(excluded.passkey, passkey)
                """)
            statement.bind(enrolment.endpoint, at: 1)
            statement.bind(enrolment.addressType, at: 2)
            statement.bind(enrolment.user, at: 3)
            statement.bind(try Self.enrolmentSettingsText(settings), at: 4)
            statement.bind(enrolment.passkey, at: 5)
            statement.bind(now(), at: 6)
            try statement.run()
            return isNew
        }
    }

    /// The `settings` column: a JSON object of setting name -> text (canonical), NULL when empty.
    static func enrolmentSettingsText(_ settings: [ParticipantSettingName: String]) throws -> String? {
        guard !settings.isEmpty else { return nil }
        let named = Dictionary(uniqueKeysWithValues: settings.map { ($0.key.rawValue, $0.value) })
        return String(decoding: try CanonicalJSON.bytes(of: named, what: "the enrolment's settings"), as: UTF8.self)
    }

    /// The settings a `settings` column holds; a value that is not such an object, or names a
    /// setting this build does not know, is an error saying so (never read as no settings).
    static func enrolmentSettings(_ text: String?, endpoint: String) throws -> [ParticipantSettingName: String] {
        guard let text else { return [:] }
        let damaged = StoreError.invalidInput("the enrolment of \(endpoint) holds settings that cannot be read (\(text)); "
                                              + "enrol it again with its settings (bracelet gateway enroll)")
        guard let named = try? JSONDecoder().decode([String: String].self, from: Data(text.utf8)) else { throw damaged }
        var settings: [ParticipantSettingName: String] = [:]
        for (name, value) in named {
            guard let setting = ParticipantSettingName(rawValue: name) else { throw damaged }
            settings[setting] = value
        }
        return settings
    }

    /// Ends the enrolment of `endpoint`; its data stays. Returns whether it was enrolled.
    public func removeEnrolment(endpoint: String) throws -> Bool {
        try write { db in
            let statement = try db.prepare("DELETE FROM gateway_enrolments WHERE endpoint = ?1")
            statement.bind(endpoint, at: 1)
            try statement.run()
            return db.changes > 0
        }
    }

    /// Drops the person's settings from the enrolment of `endpoint` once they are in the
    /// bracelet's participant record, which holds them from then on.
    public func clearEnrolmentSettings(endpoint: String) throws {
        try write { db in
            let statement = try db.prepare("UPDATE gateway_enrolments SET user_id = NULL, settings = NULL WHERE endpoint = ?1")
            statement.bind(endpoint, at: 1)
            try statement.run()
        }
    }

    /// Every enrolment, ordered by endpoint.
    public func enrolments() throws -> [GatewayEnrolment] {
        try locked { db in
            let statement = try db.prepare("""
                SELECT endpoint, address_type, user_id, settings, passkey, enrolled_at, serial, state, last_heard_at,
                    last_sync_at, last_attempt_at, failures, last_error, battery, wearing, backlog_bytes, offset_minutes,
                    sensor, samples_kept, last_sample_at, link_security
                FROM gateway_enrolments ORDER BY endpoint
                """)
            var result: [GatewayEnrolment] = []
            while try statement.step() {
                let endpoint = statement.text(at: 0) ?? ""
                var e = GatewayEnrolment(endpoint: endpoint, addressType: statement.text(at: 1), user: statement.text(at: 2),
                                         passkey: statement.int(at: 4),
                                         settings: try Self.enrolmentSettings(statement.text(at: 3), endpoint: endpoint))
                e.enrolledAt = statement.int64(at: 5) ?? 0
                e.serial = statement.text(at: 6)
                e.state = statement.text(at: 7) ?? "enrolled"
                e.lastHeardAt = statement.int64(at: 8)
                e.lastSyncAt = statement.int64(at: 9)
                e.lastAttemptAt = statement.int64(at: 10)
                e.failures = statement.int(at: 11) ?? 0
                e.lastError = statement.text(at: 12)
                e.battery = statement.int(at: 13)
                e.wearing = statement.int(at: 14)
                e.backlogBytes = statement.int(at: 15)
                e.offsetMinutes = statement.int(at: 16)
                e.sensor = statement.text(at: 17)
                e.samplesKept = statement.int(at: 18) ?? 0
                e.lastSampleAt = statement.int64(at: 19)
                e.linkSecurity = try Self.enrolledLinkSecurity(statement.text(at: 20), endpoint: endpoint)
                result.append(e)
            }
            return result
        }
    }

    /// Sets the state of `endpoint` (e.g. `syncing`, `out_of_range`), and when it was heard.
    public func setEnrolmentState(endpoint: String, state: String, heardAt: Int64? = nil) throws {
        try write { db in
            let statement = try db.prepare("""
                UPDATE gateway_enrolments SET state = ?2, last_heard_at = coalesce(?3, last_heard_at) WHERE endpoint = ?1
                """)
            statement.bind(endpoint, at: 1)
            statement.bind(state, at: 2)
            statement.bind(heardAt, at: 3)
            try statement.run()
        }
    }

    /// Records the UTC offset about to be set on the bracelet's clock, durably, before it is set:
    /// the next sync reads the bracelet's clock in that offset, also when this process is killed
    /// before the attempt's outcome is recorded.
    public func setEnrolmentOffset(endpoint: String, minutes: Int) throws {
        try write { db in
            let statement = try db.prepare("UPDATE gateway_enrolments SET offset_minutes = ?2 WHERE endpoint = ?1")
            statement.bind(endpoint, at: 1)
            statement.bind(minutes, at: 2)
            try statement.run()
        }
    }

    /// Records what a standard sensor's stream kept while its session runs: `stored` more seconds
    /// with a value, the arrival of the latest value, its battery level and serial (a value not
    /// known is kept), the profiles it streams; its state becomes `streaming`. No row (removed
    /// meanwhile): nothing happens.
    public func recordSensorProgress(endpoint: String, stored: Int, lastSampleAt: Int64?, battery: Int?, serial: String,
                                     sensor: String) throws {
        try write { db in
            let statement = try db.prepare("""
                UPDATE gateway_enrolments SET
                    samples_kept = samples_kept + ?2, last_sample_at = coalesce(?3, last_sample_at),
                    last_heard_at = coalesce(?3, last_heard_at), battery = coalesce(?4, battery),
                    serial = ?5, sensor = ?6, state = 'streaming'
                WHERE endpoint = ?1
                """)
            statement.bind(endpoint, at: 1)
            statement.bind(max(0, stored), at: 2)
            statement.bind(lastSampleAt, at: 3)
            statement.bind(battery, at: 4)
            statement.bind(serial, at: 5)
            statement.bind(sensor, at: 6)
            try statement.run()
        }
    }

    /// Records the outcome of one sync attempt of `endpoint`: a completed one resets its failures,
    /// a failed one counts one more; what the bracelet reported replaces what was known (a value it
    /// did not report is kept). No row (removed meanwhile): nothing happens.
    public func recordAttempt(endpoint: String, _ attempt: GatewayAttempt) throws {
        try write { db in
            let statement = try db.prepare("""
                UPDATE gateway_enrolments SET
                    last_attempt_at = ?2,
                    last_sync_at = CASE WHEN ?3 THEN ?2 ELSE last_sync_at END,
                    last_heard_at = CASE WHEN ?4 THEN ?2 ELSE last_heard_at END,
                    failures = CASE WHEN ?3 THEN 0 ELSE failures + 1 END,
                    state = CASE WHEN ?3 THEN 'synced' WHEN ?4 THEN 'failing' ELSE 'out_of_range' END,
                    last_error = ?5,
                    serial = coalesce(?6, serial), battery = coalesce(?7, battery), wearing = coalesce(?8, wearing),
                    backlog_bytes = coalesce(?9, backlog_bytes), offset_minutes = coalesce(?10, offset_minutes)
                WHERE endpoint = ?1
                """)
            statement.bind(endpoint, at: 1)
            statement.bind(attempt.at, at: 2)
            statement.bind(attempt.completed ? 1 : 0, at: 3)
            statement.bind(attempt.heard ? 1 : 0, at: 4)
            statement.bind(attempt.error, at: 5)
            statement.bind(attempt.serial.flatMap { $0.isEmpty ? nil : $0 }, at: 6)
            statement.bind(attempt.battery, at: 7)
            statement.bind(attempt.wearing, at: 8)
            statement.bind(attempt.backlogBytes, at: 9)
            statement.bind(attempt.offsetMinutes, at: 10)
            try statement.run()
        }
    }

    /// Writes an operator event as an outbox entry of kind `event:NAME` for `device`, unless one with
    /// the same `key` exists (an event is raised once per occurrence, however often it is checked).
    /// Its payload's `summary` is `{"at","detail","event"}`. Returns whether it was written.
    public func enqueueOperatorEvent(key: String, name: String, device: String, localDate: String, at: Int64,
                                     detail: String) throws -> Bool {
        try write { db in
            let exists = try db.prepare("SELECT 1 FROM outbox WHERE key = ?1")
            exists.bind(key, at: 1)
            if try exists.step() { return false }
            let body = CanonicalJSON.Node(.object)
            body.child(forKey: "event").value = .string(name)
            body.child(forKey: "at").value = .string(UTCTime.iso8601(unixMilliseconds: at))
            body.child(forKey: "detail").value = .string(detail)
            var summary: [UInt8] = []
            CanonicalJSON.write(body, into: &summary)
            try enqueue(db, key: key, kind: "event:" + name, device: device, localDate: localDate, version: 1,
                        contentHash: SHA256.hex(summary), summary: summary, extra: [:], scoreInput: nil)
            return true
        }
    }

    /// The most recent operator events (outbox kind `event:*`), newest first: key, kind, device, state.
    public func operatorEvents(limit: Int) throws -> [(key: String, kind: String, device: String, state: String, createdAt: Int64)] {
        try locked { db in
            let statement = try db.prepare("""
                SELECT key, kind, device, state, created_at FROM outbox WHERE kind LIKE 'event:%' ORDER BY id DESC LIMIT ?1
                """)
            statement.bind(limit, at: 1)
            var rows: [(key: String, kind: String, device: String, state: String, createdAt: Int64)] = []
            while try statement.step() {
                rows.append((statement.text(at: 0) ?? "", statement.text(at: 1) ?? "", statement.text(at: 2) ?? "",
                             statement.text(at: 3) ?? "", statement.int64(at: 4) ?? 0))
            }
            return rows
        }
    }

    /// Slots of `device` starting in `[from, to)` (Unix s), how many of them say the bracelet was
    /// worn, and the seconds they cover (each slot its own length: bracelets record 1 s to 1 h slots).
    public func wornSlotCount(device: String, from: Int64, to: Int64) throws -> (slots: Int, worn: Int, seconds: Int64) {
        try locked { db in
            let statement = try db.prepare("""
                SELECT count(*), count(CASE WHEN s.wearing > 0 THEN 1 END), coalesce(sum(s.interval_s), 0)
                FROM slots s JOIN devices d ON d.id = s.device_id
                WHERE d.serial = ?1 AND s.start >= ?2 AND s.start < ?3
                """)
            statement.bind(device, at: 1)
            statement.bind(from, at: 2)
            statement.bind(to, at: 3)
            guard try statement.step() else { return (0, 0, 0) }
            return (statement.int(at: 0) ?? 0, statement.int(at: 1) ?? 0, statement.int64(at: 2) ?? 0)
        }
    }

    /// Per sink that was ever tried: entries it delivered and dead letters it made, with the
    /// outbox's pending count; one `outbox` row when no sink was tried yet.
    public func sinkCounts() throws -> [SinkCounts] {
        let counts = try outboxCounts()
        let rows = try locked { db in
            let statement = try db.prepare("""
                SELECT l.sink,
                    count(DISTINCT CASE WHEN l.outcome IN ('delivered', 'already_had') THEN l.outbox_id END),
                    count(DISTINCT CASE WHEN l.outcome = 'permanent_failure' AND o.state = 'dead' THEN l.outbox_id END)
                FROM delivery_log l JOIN outbox o ON o.id = l.outbox_id GROUP BY l.sink ORDER BY l.sink
                """)
            var rows: [SinkCounts] = []
            while try statement.step() {
                rows.append(SinkCounts(sink: statement.text(at: 0) ?? "", pending: counts.pending, delivered: statement.int(at: 1) ?? 0,
                                       dead: statement.int(at: 2) ?? 0))
            }
            return rows
        }
        return rows.isEmpty ? [SinkCounts(sink: "outbox", pending: counts.pending, delivered: counts.delivered, dead: counts.dead)] : rows
    }
}
