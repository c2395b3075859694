import BraceletStore
import BraceletVitality
import Foundation

/// One outbox entry as a row of the fleet tables, checked before it is sent.
struct FleetRow {
    /// The entry.
    let entry: OutboxEntry
    /// Its position in the batch.
    let index: Int
    /// The payload as text (UTF-8, no NUL: what a PostgreSQL text value holds).
    let payload: String
    /// The table it goes to, with what the envelope says for it.
    let table: Table

    /// The fleet table of an entry.
    enum Table {
        /// `fleet_daily_summaries` (kind `daily:<kind>`).
        case day
        /// `fleet_sleep_sessions`: the session's start and stop (Unix s) from the envelope.
        case sleep(start: Int64, stop: Int64)
        /// `fleet_operator_events` (kind `event:NAME`): the event's name, when it was raised
        /// (ISO 8601 UTC) and its detail, from the envelope.
        case event(name: String, at: String, detail: String)
    }

    /// Why an entry cannot be a fleet row.
    struct Refusal: Error, CustomStringConvertible {
        let description: String
    }

    /// Checks `entry`: a daily summary, sleep session or operator event envelope with a valid date
    /// and version.
    init(entry: OutboxEntry, index: Int) throws {
        self.entry = entry
        self.index = index
        guard LocalDates.isValid(entry.localDate), entry.version >= 1, entry.version <= Int(Int32.max), !entry.device.isEmpty else {
            throw Refusal(description: "outbox entry \(entry.key) has an invalid date, version or device; it cannot be stored in the fleet database")
        }
        // Over the raw bytes: Data's own iterator went byte by byte through a generic path (8 % of
        // a sync's CPU on 0.6 MB day summaries).
        guard !entry.payload.withUnsafeBytes({ $0.contains(0) }), let text = String(validating: entry.payload, as: UTF8.self) else {
            throw Refusal(description: "outbox entry \(entry.key) has a payload that is not UTF-8 text; it cannot be stored in the fleet database")
        }
        payload = text
        if entry.kind == "sleep_session" {
            guard let bounds = try? JSONDecoder().decode(SessionBounds.self, from: entry.payload) else {
                throw Refusal(description: "sleep session entry \(entry.key) has no start and stop in its payload")
            }
            table = .sleep(start: bounds.start, stop: bounds.stop)
        } else if entry.kind.hasPrefix("daily:") {
            table = .day
        } else if entry.kind.hasPrefix("event:") {
            let name = String(entry.kind.dropFirst("event:".count))
            // The time is checked by the server, which reads it as a timestamptz.
            guard let event = try? JSONDecoder().decode(EventEnvelope.self, from: entry.payload).summary, event.event == name, !name.isEmpty,
                  !event.at.isEmpty else {
                throw Refusal(description: "operator event entry \(entry.key) has no event \(name) with its time and detail in its payload")
            }
            table = .event(name: name, at: event.at, detail: event.detail)
        } else {
            throw Refusal(description: "outbox entry \(entry.key) is of kind \(entry.kind), which the fleet database does not hold "
                + "(it takes daily:<kind>, sleep_session and event:<name>); deliver it with another sink (--kinds)")
        }
    }

    private struct SessionBounds: Decodable {
        let start: Int64
        let stop: Int64
    }

    private struct EventEnvelope: Decodable {
        struct Event: Decodable {
            let event: String
            let at: String
            let detail: String
        }

        let summary: Event
    }

    /// For a sleep session, its start and stop (Unix s).
    var session: (start: Int64, stop: Int64)? {
        if case let .sleep(start, stop) = table { return (start, stop) }
        return nil
    }

    /// Whether it is an operator event.
    var isEvent: Bool {
        if case .event = table { return true }
        return false
    }

    /// The row's key in its table: device, kind and date; device and session start; or device and
    /// outbox key (an event occurrence).
    var naturalKey: String {
        switch table {
        case .day: "\(entry.device)\u{0}\(entry.kind)\u{0}\(entry.localDate)"
        case let .sleep(start, _): "\(entry.device)\u{0}sleep\u{0}\(start)"
        case .event: "\(entry.device)\u{0}event\u{0}\(entry.key)"
        }
    }

    /// What `score` reads of the summary (canonical JSON): the one the gateway made when it computed
    /// the summary, or, for an entry written without one, made here from the payload (decoding a
    /// 0.6 MB day summary is most of what such a delivery costs the gateway), only for the rows a
    /// batch sends. `nil` for a summary this build cannot read.
    var scoreInput: String? {
        if let made = entry.scoreInput { return made }
        if session != nil { return SleepScoreInput.text(payload: entry.payload) }
        return try? DayScoreInput(payload: entry.payload)?.text()
    }

    var dailyParameters: [String?] {
        [entry.device, entry.kind, entry.localDate, String(entry.version), entry.contentHash, entry.user, entry.key, payload, scoreInput]
    }

    var sleepParameters: [String?] {
        [entry.device, String(session?.start ?? 0), String(session?.stop ?? 0), entry.localDate, String(entry.version),
         entry.contentHash, entry.user, entry.key, payload, scoreInput]
    }

    var eventParameters: [String?] {
        guard case let .event(name, at, detail) = table else { return [] }
        return [entry.device, name, entry.key, entry.localDate, at, detail, entry.user, entry.contentHash, payload]
    }

    /// `rows` in pieces of at most `size` rows and about `bytes` of payload (at least one row each):
    /// libpq holds a whole statement in memory, and a day summary is about 0.47 MB.
    static func chunks(_ rows: [FleetRow], of size: Int, bytes: Int) -> [ArraySlice<FleetRow>] {
        var pieces: [ArraySlice<FleetRow>] = []
        var start = 0
        var total = 0
        for (index, row) in rows.enumerated() {
            if index > start && (index - start == size || total + row.entry.payload.count > bytes) {
                pieces.append(rows[start..<index])
                start = index
                total = 0
            }
            total += row.entry.payload.count
        }
        if start < rows.count { pieces.append(rows[start...]) }
        return pieces
    }

    /// `($1, $2::date, ...), (...)` for `rows` rows of `casts` (one cast per column, `""` for none).
    static func values(rows: Int, casts: [String]) -> String {
        values(rows: rows, columns: casts.map { "$" + $0 })
    }

    /// `(..., ...), (...)` for `rows` rows of `columns`, each an expression in which `$` stands for
    /// its parameter (`$::date`, `lower($)`) or a value without one (`current_user`); the parameters
    /// are numbered in order, row by row.
    static func values(rows: Int, columns: [String]) -> String {
        var next = 0
        return (0..<rows).map { _ in
            "(" + columns.map { column in
                guard column.contains("$") else { return column }
                next += 1
                return column.replacingOccurrences(of: "$", with: "$\(next)")
            }.joined(separator: ", ") + ")"
        }.joined(separator: ", ")
    }

    /// The upsert of daily summaries: newer versions only; returns the keys it wrote.
    static func dailyUpsert(rows: Int) -> String {
        """
        INSERT INTO fleet_daily_summaries AS t (device, kind, local_date, version, content_hash, user_id, outbox_key, payload, score_input)
        VALUES \(values(rows: rows, casts: ["", "", "::date", "::integer", "", "", "", "", ""]))
        ON CONFLICT (device, kind, local_date) DO UPDATE SET version = excluded.version, content_hash = excluded.content_hash,
            user_id = excluded.user_id, outbox_key = excluded.outbox_key, payload = excluded.payload,
            score_input = excluded.score_input, delivered_at = now()
        WHERE t.version < excluded.version
        RETURNING outbox_key
        """
    }

    /// The upsert of sleep sessions: newer versions only; returns the keys it wrote.
    static func sleepUpsert(rows: Int) -> String {
        """
        INSERT INTO fleet_sleep_sessions AS t (device, session_start, session_stop, local_date, version, content_hash, user_id,
            outbox_key, payload, score_input)
        VALUES \(values(rows: rows, casts: ["", "::bigint", "::bigint", "::date", "::integer", "", "", "", "", ""]))
        ON CONFLICT (device, session_start) DO UPDATE SET session_stop = excluded.session_stop, local_date = excluded.local_date,
            version = excluded.version, content_hash = excluded.content_hash, user_id = excluded.user_id,
            outbox_key = excluded.outbox_key, payload = excluded.payload, score_input = excluded.score_input, delivered_at = now()
        WHERE t.version < excluded.version
        RETURNING outbox_key
        """
    }

    /// The insert of operator events: each occurrence once (an event never changes); returns the
    /// keys it wrote.
    static func eventInsert(rows: Int) -> String {
        """
        INSERT INTO fleet_operator_events (device, event, outbox_key, local_date, raised_at, detail, user_id, content_hash, payload)
        VALUES \(values(rows: rows, casts: ["", "", "", "::date", "::timestamptz", "", "", "", ""]))
        ON CONFLICT (device, outbox_key) DO NOTHING
        RETURNING outbox_key
        """
    }

    /// The last sync time (and the participant, when known) of each device of a batch.
    static func deviceUpsert(rows: Int) -> String {
        """
        INSERT INTO fleet_devices AS t (device, user_id, last_sync_at) VALUES \(values(rows: rows, casts: ["", ""]).replacingOccurrences(of: ")", with: ", now())"))
        ON CONFLICT (device) DO UPDATE SET last_sync_at = now(), user_id = coalesce(excluded.user_id, t.user_id)
        """
    }
}
