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
    /// For a sleep session, its start and stop (Unix s) from the envelope.
    let session: (start: Int64, stop: Int64)?

    /// Why an entry cannot be a fleet row.
    struct Refusal: Error, CustomStringConvertible {
        let description: String
    }

    /// Checks `entry`: a daily summary or sleep session envelope with a valid date and version.
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
            session = (bounds.start, bounds.stop)
        } else if entry.kind.hasPrefix("daily:") {
            session = nil
        } else {
            throw Refusal(description: "outbox entry \(entry.key) is of kind \(entry.kind), which the fleet database does not hold "
                + "(it takes daily:<kind> and sleep_session); deliver it with another sink (--kinds)")
        }
    }

    private struct SessionBounds: Decodable {
        let start: Int64
        let stop: Int64
    }

    /// The row's key in its table: device, kind and date, or device and session start.
    var naturalKey: String {
        if let session { return "\(entry.device)\u{0}sleep\u{0}\(session.start)" }
        return "\(entry.device)\u{0}\(entry.kind)\u{0}\(entry.localDate)"
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
        (0..<rows).map { row in
            "(" + casts.enumerated().map { "$\(row * casts.count + $0.offset + 1)\($0.element)" }.joined(separator: ", ") + ")"
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

    /// The last sync time (and the participant, when known) of each device of a batch.
    static func deviceUpsert(rows: Int) -> String {
        """
        INSERT INTO fleet_devices AS t (device, user_id, last_sync_at) VALUES \(values(rows: rows, casts: ["", ""]).replacingOccurrences(of: ")", with: ", now())"))
        ON CONFLICT (device) DO UPDATE SET last_sync_at = now(), user_id = coalesce(excluded.user_id, t.user_id)
        """
    }
}
