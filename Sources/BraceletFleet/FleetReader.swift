import BraceletSummaries
import Foundation

/// Reads the fleet database: the delivered summaries of a device or participant, and each
/// device's delivery status. Used by `score`, `summarize` and `fleet status` with `--postgres`.
public final class FleetReader {
    let connection: PGConnection

    /// The outbox kind of the day summaries the gateways write (`SummaryRecomputer.dailyKind`).
    public static let dailyKind = "daily:daily"

    /// Connects and checks the fleet schema is there and not newer than this build.
    ///
    /// - Throws: ``FleetError`` (cannot connect, login refused, no fleet tables yet, newer schema).
    public init(server: FleetServer) throws {
        connection = try PGConnection(server: server)
        let version = try FleetSchema.version(connection)
        guard let version, version >= 1 else {
            throw FleetError.noFleetTables(server: server.description)
        }
        guard version <= FleetSchema.latestVersion else { throw FleetError.schemaNewer(found: version, supported: FleetSchema.latestVersion) }
    }

    /// The day rows of kind `$2` from `$3` to `$4`.
    static let dayFilter = "kind = $2 AND local_date BETWEEN $3::date AND $4::date"

    /// Who the rows are selected by.
    public enum Subject: Sendable, Equatable, CustomStringConvertible {
        /// One bracelet (serial).
        case device(String)
        /// One study participant: the days of every device assigned to them.
        case user(String)

        /// `device S` or `user U`.
        public var description: String {
            switch self {
            case let .device(serial): "device \(serial)"
            case let .user(user): "user \(user)"
            }
        }

        /// The subject's rows of `table` that pass `filter` (its parameters from `$2`), `columns` of
        /// them, as a row source for `FROM`, with the subject as `$1`. A participant's rows are those
        /// stamped with them, and the unstamped rows (delivered before any participant was
        /// assigned) of the devices assigned to them now: two arms, so that each uses an index
        /// (an `OR` of both made PostgreSQL scan the whole table).
        func rows(of table: String, _ columns: String, where filter: String) -> String {
            switch self {
            case .device:
                return "(SELECT \(columns) FROM \(table) WHERE device = $1 AND \(filter)) AS rows"
            case .user:
                return """
                    (SELECT \(columns) FROM \(table) WHERE user_id = $1 AND \(filter)
                     UNION ALL SELECT \(columns) FROM \(table)
                     WHERE user_id IS NULL AND device IN (SELECT device FROM fleet_devices WHERE user_id = $1) AND \(filter)) AS rows
                    """
            }
        }

        var value: String {
            switch self {
            case let .device(serial): serial
            case let .user(user): user
            }
        }
    }

    /// The delivered day summaries of `subject` from `fromDate` to `toDate` (inclusive,
    /// `YYYY-MM-DD`), oldest first. A participant who wore two bracelets on one day gets the
    /// summary delivered last. A participant's days are those whose entries carried the
    /// participant (as in the gateway's outbox), and the days of the devices assigned to them
    /// that were delivered before any participant was assigned.
    public func days(of subject: Subject, fromDate: String = "0001-01-01", toDate: String = "9999-12-31") throws -> [DailySummary] {
        let rows = try connection.execute("""
            SELECT DISTINCT ON (local_date) payload
            FROM \(subject.rows(of: "fleet_daily_summaries", "local_date, delivered_at, payload", where: Self.dayFilter))
            ORDER BY local_date, delivered_at DESC
            """, [subject.value, Self.dailyKind, fromDate, toDate])
        return try rows.values.map { try Self.summary(of: $0.first ?? nil, as: DailySummary.self) }
    }

    /// The delivered sleep sessions of `subject` that belong to local dates `fromDate...toDate`,
    /// by start.
    public func sleepSessions(of subject: Subject, fromDate: String = "0001-01-01", toDate: String = "9999-12-31") throws -> [SleepSession] {
        let rows = try connection.execute("""
            SELECT payload FROM \(subject.rows(of: "fleet_sleep_sessions", "session_start, payload",
                                                 where: "local_date BETWEEN $2::date AND $3::date"))
            ORDER BY session_start
            """, [subject.value, fromDate, toDate])
        return try rows.values.map { try Self.summary(of: $0.first ?? nil, as: SleepSession.self) }
    }

    /// Every device's delivery status, by serial.
    public func status() throws -> [FleetDeviceStatus] {
        // Aggregated per device in one pass (a subquery per device read the whole table once per
        // device: 22 s for 1,000 devices x 31 days, against 0.09 s).
        let rows = try connection.execute("""
            WITH days AS (
                SELECT device, local_date, lead(local_date) OVER (PARTITION BY device ORDER BY local_date) AS next
                FROM fleet_daily_summaries WHERE kind = $1
            ), per_device AS (
                SELECT device, max(local_date) AS last_day, min(local_date + 1) FILTER (WHERE next > local_date + 1) AS gap,
                    count(*) AS days
                FROM days GROUP BY device
            ), sessions AS (
                SELECT device, count(*) AS sessions FROM fleet_sleep_sessions GROUP BY device
            )
            SELECT d.device, d.user_id, to_char(d.last_sync_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
                p.last_day::text, p.gap::text, coalesce(p.days, 0), coalesce(s.sessions, 0)
            FROM fleet_devices d LEFT JOIN per_device p ON p.device = d.device LEFT JOIN sessions s ON s.device = d.device
            ORDER BY d.device
            """, [Self.dailyKind])
        return rows.values.map { row in
            FleetDeviceStatus(device: row[0] ?? "", user: row[1], lastSync: row[2] ?? "", lastDay: row[3], oldestGap: row[4],
                              days: Int(row[5] ?? "") ?? 0, sleepSessions: Int(row[6] ?? "") ?? 0)
        }
    }

    /// The `summary` of a stored envelope, decoded.
    static func summary<T: Decodable>(of payload: String?, as type: T.Type) throws -> T {
        guard let payload else { throw FleetError.badRow(detail: "a payload is NULL") }
        do { return try JSONDecoder().decode(SummaryEnvelope<T>.self, from: Data(payload.utf8)).summary } catch {
            throw FleetError.badRow(detail: "a payload is not a summary envelope (\(error))")
        }
    }
}

/// The part of a stored outbox envelope the readers need.
private struct SummaryEnvelope<T: Decodable>: Decodable {
    let summary: T
}

/// One device in `bracelet fleet status`.
public struct FleetDeviceStatus: Sendable, Equatable, Codable {
    /// The bracelet serial.
    public var device: String
    /// Its study participant, when assigned.
    public var user: String?
    /// When a gateway last delivered for it (UTC, ISO 8601).
    public var lastSync: String
    /// The latest local date with a day summary, `nil` when none arrived yet.
    public var lastDay: String?
    /// The first local date missing between the first and the last delivered day, `nil` when none is.
    public var oldestGap: String?
    /// Day summaries held.
    public var days: Int
    /// Sleep sessions held.
    public var sleepSessions: Int

    enum CodingKeys: String, CodingKey {
        case device, user, days
        case lastSync = "last_sync"
        case lastDay = "last_day"
        case oldestGap = "oldest_gap"
        case sleepSessions = "sleep_sessions"
    }
}
