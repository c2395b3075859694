/// The fleet database's own schema, as an ordered list of migrations (each a list of statements).
/// Migration `n` (1-based) moves `fleet_schema.version` from `n - 1` to `n`. Never edit a migration
/// that has shipped: append a new one.
///
/// Tables:
/// - `fleet_daily_summaries`: the newest delivered version of each daily summary, keyed by device,
///   outbox kind (`daily:<kind>`) and local date; `payload` is the outbox envelope exactly as the
///   gateway wrote it (canonical JSON, so `content_hash` can be checked against its `summary`).
/// - `fleet_sleep_sessions`: the newest delivered version of each sleep session, keyed by device
///   and session start (Unix s), with the local date it belongs to.
/// - `fleet_devices`: each device's participant and the last time a gateway delivered for it.
/// - `fleet_daily_summaries.score_input` (migration 2): the day summary without its per-slot arrays
///   and the movement minutes they gave, which is all `score` needs of a day.
/// - `fleet_sleep_sessions.score_input` (migration 3): the session without its stage samples, all
///   `score` needs of a session.
/// - Roles (migration 4, see ``FleetAdmin``): `fleet_gateways` names each gateway's login role,
///   `fleet_assignments` gives each device to one gateway. Members of `bracelet_gateway` may insert,
///   update and read only the rows of devices assigned to them (row-level security), read their own
///   assignments and the schema version, and nothing else: no delete, no DDL, no temporary objects.
///   Members of `bracelet_reader` read everything and write nothing. Only the owner changes the schema.
/// - Scores (migration 5, see ``FleetScorer``): `fleet_scores` holds the vitality score of each
///   device for a window (its length and last day), or why it could not be scored. Members of
///   `bracelet_scorer` (the nightly `fleet score` job) read what scoring reads (day summaries,
///   sleep sessions, devices) and insert and update scores, nothing else; readers read the scores;
///   gateways have no right on them.
/// - Gateway status (migration 6, ``statusMigration``): `fleet_operator_events` holds each operator
///   event a gateway raised (outbox kind `event:NAME`), once per occurrence; `fleet_device_status`
///   what each device's gateway last reported of it (last heard, last sync, battery and its change,
///   backlog, open events: the study page's columns); `fleet_gateway_sinks` each gateway's sinks as
///   it last reported them. A gateway writes only its assigned devices' events and status and its
///   own sinks' rows; readers read them; scorers have no right on them.
///
/// Raw slots and beats stay on the gateways: the server holds what scoring and reporting read
/// (summaries are about 1/100 of a day's slots), and a changed summary arrives as a new version.
enum FleetSchema {
    static let migrations: [[String]] = [
        [
            """
            CREATE TABLE fleet_daily_summaries (
                device text NOT NULL,
                kind text NOT NULL,
                local_date date NOT NULL,
                version integer NOT NULL CHECK (version >= 1),
                content_hash text NOT NULL,
                user_id text,
                outbox_key text NOT NULL,
                payload text NOT NULL,
                delivered_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (device, kind, local_date)
            )
            """,
            "CREATE INDEX fleet_daily_summaries_user ON fleet_daily_summaries (user_id, kind, local_date) WHERE user_id IS NOT NULL",
            """
            CREATE TABLE fleet_sleep_sessions (
                device text NOT NULL,
                session_start bigint NOT NULL,
                session_stop bigint NOT NULL,
                local_date date NOT NULL,
                version integer NOT NULL CHECK (version >= 1),
                content_hash text NOT NULL,
                user_id text,
                outbox_key text NOT NULL,
                payload text NOT NULL,
                delivered_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (device, session_start)
            )
            """,
            "CREATE INDEX fleet_sleep_sessions_date ON fleet_sleep_sessions (device, local_date)",
            """
            CREATE TABLE fleet_devices (
                device text PRIMARY KEY,
                user_id text,
                last_sync_at timestamptz NOT NULL
            )
            """,
        ],
        [
            // What `score` reads of a day (the summary without its slot arrays): a few kB per day
            // instead of the whole document. NULL on rows delivered before; readers fall back.
            "ALTER TABLE fleet_daily_summaries ADD COLUMN score_input text",
            // A participant's sleep sessions are read by participant, like their days.
            "CREATE INDEX fleet_sleep_sessions_user ON fleet_sleep_sessions (user_id, local_date) WHERE user_id IS NOT NULL",
            // The devices of a participant, for their rows delivered before the assignment.
            "CREATE INDEX fleet_devices_user ON fleet_devices (user_id) WHERE user_id IS NOT NULL",
            // Payloads are hundreds of kB of JSON: lz4 compresses them several times faster than
            // PostgreSQL's default pglz, whatever the server's default_toast_compression. A server
            // built without lz4 keeps its default.
            """
            DO $$ BEGIN
                ALTER TABLE fleet_daily_summaries ALTER COLUMN payload SET COMPRESSION lz4;
                ALTER TABLE fleet_sleep_sessions ALTER COLUMN payload SET COMPRESSION lz4;
            EXCEPTION WHEN feature_not_supported THEN NULL;
            END $$
            """,
        ],
        [
            // What `score` reads of a sleep session (without its stage samples): 0.6 kB instead of
            // 13-23 kB. NULL on rows delivered before; readers fall back to the payload.
            "ALTER TABLE fleet_sleep_sessions ADD COLUMN score_input text",
        ],
        rolesMigration,
        scoresMigration,
        statusMigration,
    ]

    /// Least privilege enforced by the server: a gateway's credentials sit on a box anyone in that
    /// home can reach, so they must reach only that gateway's devices. The group roles are
    /// cluster-wide (created once), the grants and policies are this database's.
    static let rolesMigration: [String] = {
        let gatewayTables = ["fleet_daily_summaries", "fleet_sleep_sessions", "fleet_devices"]
        return [
            """
            CREATE TABLE fleet_gateways (
                name text PRIMARY KEY,
                created_at timestamptz NOT NULL DEFAULT now()
            )
            """,
            """
            CREATE TABLE fleet_assignments (
                device text PRIMARY KEY,
                gateway text NOT NULL REFERENCES fleet_gateways (name),
                assigned_at timestamptz NOT NULL DEFAULT now()
            )
            """,
            "CREATE INDEX fleet_assignments_gateway ON fleet_assignments (gateway)",
            """
            DO $$ BEGIN
                IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '\(gatewayGroup)') THEN CREATE ROLE \(gatewayGroup) NOLOGIN; END IF;
                IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '\(readerGroup)') THEN CREATE ROLE \(readerGroup) NOLOGIN; END IF;
                EXECUTE format('REVOKE ALL ON DATABASE %I FROM PUBLIC', current_database());
                EXECUTE format('GRANT CONNECT ON DATABASE %I TO \(gatewayGroup), \(readerGroup)', current_database());
            END $$
            """,
            // No role but the owner creates anything in the schema, and PUBLIC gets nothing.
            "REVOKE ALL ON SCHEMA public FROM PUBLIC",
            "GRANT USAGE ON SCHEMA public TO \(gatewayGroup), \(readerGroup)",
            "REVOKE ALL ON ALL TABLES IN SCHEMA public FROM PUBLIC",
            "GRANT SELECT ON fleet_schema TO \(gatewayGroup), \(readerGroup)",
            "GRANT SELECT, INSERT, UPDATE ON \(gatewayTables.joined(separator: ", ")) TO \(gatewayGroup)",
            "GRANT SELECT ON fleet_assignments TO \(gatewayGroup)",
            "GRANT SELECT ON \((gatewayTables + ["fleet_assignments", "fleet_gateways"]).joined(separator: ", ")) TO \(readerGroup)",
            "ALTER TABLE fleet_assignments ENABLE ROW LEVEL SECURITY",
            "CREATE POLICY gateway_own ON fleet_assignments FOR SELECT TO \(gatewayGroup) USING (gateway = current_user::text)",
            "CREATE POLICY reader_all ON fleet_assignments FOR SELECT TO \(readerGroup) USING (true)",
        ] + gatewayTables.flatMap { table in
            [
                "ALTER TABLE \(table) ENABLE ROW LEVEL SECURITY",
                "CREATE POLICY gateway_assigned ON \(table) TO \(gatewayGroup) USING (\(assignedDevice)) WITH CHECK (\(assignedDevice))",
                "CREATE POLICY reader_all ON \(table) FOR SELECT TO \(readerGroup) USING (true)",
            ]
        }
    }()

    /// The scores of `fleet score` and the role that writes them. A scoring job needs every
    /// device's days but no gateway's write rights and no owner's (who makes roles and changes the
    /// schema), so it has its own group; the readers who query the scores only read them.
    static let scoresMigration: [String] = [
        """
        CREATE TABLE fleet_scores (
            device text NOT NULL,
            window_days integer NOT NULL CHECK (window_days BETWEEN 7 AND 30),
            window_end date NOT NULL,
            window_start date NOT NULL,
            user_id text,
            age integer NOT NULL,
            total double precision,
            sleep double precision,
            movement double precision,
            stress_recovery double precision,
            scores jsonb,
            warnings jsonb NOT NULL DEFAULT '[]',
            error text,
            scored_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (device, window_days, window_end),
            CHECK ((scores IS NULL) <> (error IS NULL))
        )
        """,
        // A study asks for one night's scores of everyone, or one participant's over time.
        "CREATE INDEX fleet_scores_end ON fleet_scores (window_end, window_days)",
        "CREATE INDEX fleet_scores_user ON fleet_scores (user_id, window_end) WHERE user_id IS NOT NULL",
        """
        DO $$ BEGIN
            IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '\(scorerGroup)') THEN CREATE ROLE \(scorerGroup) NOLOGIN; END IF;
            EXECUTE format('GRANT CONNECT ON DATABASE %I TO \(scorerGroup)', current_database());
        END $$
        """,
        "GRANT USAGE ON SCHEMA public TO \(scorerGroup)",
        "GRANT SELECT ON fleet_schema, fleet_daily_summaries, fleet_sleep_sessions, fleet_devices TO \(scorerGroup)",
        "GRANT SELECT, INSERT, UPDATE ON fleet_scores TO \(scorerGroup)",
        "GRANT SELECT ON fleet_scores TO \(readerGroup)",
        "ALTER TABLE fleet_scores ENABLE ROW LEVEL SECURITY",
        "CREATE POLICY scorer_all ON fleet_scores TO \(scorerGroup) USING (true) WITH CHECK (true)",
        "CREATE POLICY reader_all ON fleet_scores FOR SELECT TO \(readerGroup) USING (true)",
    ] + ["fleet_daily_summaries", "fleet_sleep_sessions", "fleet_devices"].map { table in
        // Row-level security is on for these tables: without a policy the scorer would see no row.
        "CREATE POLICY scorer_read ON \(table) FOR SELECT TO \(scorerGroup) USING (true)"
    }

    /// A row's device is the session's when its assignment names the session's role: the
    /// row-level security of every table a gateway writes by device.
    static let assignedDevice = "device IN (SELECT a.device FROM fleet_assignments a WHERE a.gateway = current_user::text)"

    /// What the study page shows of a gateway, kept in the fleet so that a reader draws the page
    /// the gateway draws: its operator events (delivered from the outbox like summaries, each
    /// occurrence once, never changed), each device's status and its sinks' (upserted by its
    /// delivery, newest wins). A gateway's credentials reach only its own devices' rows and its own
    /// sinks' row, as for the summaries; readers read everything; the scoring job needs none of it.
    static let statusMigration: [String] = {
        let tables = ["fleet_operator_events", "fleet_device_status", "fleet_gateway_sinks"]
        let ownRole = "gateway = current_user::text"
        return [
            """
            CREATE TABLE fleet_operator_events (
                device text NOT NULL,
                event text NOT NULL,
                outbox_key text NOT NULL,
                local_date date NOT NULL,
                raised_at timestamptz NOT NULL,
                detail text NOT NULL,
                user_id text,
                content_hash text NOT NULL,
                payload text NOT NULL,
                delivered_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (device, outbox_key)
            )
            """,
            // The newest event of each name of a device, and a study's events of a period.
            "CREATE INDEX fleet_operator_events_latest ON fleet_operator_events (device, event, raised_at)",
            "CREATE INDEX fleet_operator_events_raised ON fleet_operator_events (raised_at)",
            """
            CREATE TABLE fleet_device_status (
                device text PRIMARY KEY,
                gateway text NOT NULL,
                user_id text,
                model text,
                state text NOT NULL,
                last_heard_at timestamptz,
                last_sync_at timestamptz,
                battery integer,
                battery_change integer,
                backlog_bytes bigint,
                open_events text[] NOT NULL DEFAULT '{}',
                reported_at timestamptz NOT NULL,
                received_at timestamptz NOT NULL DEFAULT now()
            )
            """,
            """
            CREATE TABLE fleet_gateway_sinks (
                gateway text NOT NULL,
                sink text NOT NULL,
                pending integer NOT NULL,
                delivered integer NOT NULL,
                dead integer NOT NULL,
                state text CHECK (state IN ('ok', 'failing', 'paused')),
                failures_in_a_row integer,
                last_attempt_at timestamptz,
                last_success_at timestamptz,
                last_error text,
                reported_at timestamptz NOT NULL,
                received_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (gateway, sink)
            )
            """,
            // An event is written once and never changed: a gateway inserts and reads its own.
            "GRANT SELECT, INSERT ON fleet_operator_events TO \(gatewayGroup)",
            // A gateway's report names all its devices and sinks: it removes its rows of those it no
            // longer has.
            "GRANT SELECT, INSERT, UPDATE, DELETE ON fleet_device_status, fleet_gateway_sinks TO \(gatewayGroup)",
            "GRANT SELECT ON \(tables.joined(separator: ", ")) TO \(readerGroup)",
        ] + tables.map { "ALTER TABLE \($0) ENABLE ROW LEVEL SECURITY" } + [
            "CREATE POLICY gateway_assigned ON fleet_operator_events TO \(gatewayGroup) USING (\(assignedDevice)) WITH CHECK (\(assignedDevice))",
            // The status names the gateway that wrote it: its own role, nobody else's.
            """
            CREATE POLICY gateway_assigned ON fleet_device_status TO \(gatewayGroup) USING (\(assignedDevice))
                WITH CHECK (\(assignedDevice) AND \(ownRole))
            """,
            "CREATE POLICY gateway_own ON fleet_gateway_sinks TO \(gatewayGroup) USING (\(ownRole)) WITH CHECK (\(ownRole))",
        ] + tables.map { "CREATE POLICY reader_all ON \($0) FOR SELECT TO \(readerGroup) USING (true)" }
    }()

    /// The group role every gateway's login role is a member of.
    static let gatewayGroup = "bracelet_gateway"
    /// The group role every read-only login role is a member of.
    static let readerGroup = "bracelet_reader"
    /// The group role of the login roles that run `fleet score`.
    static let scorerGroup = "bracelet_scorer"

    /// The schema version this build writes.
    static var latestVersion: Int { migrations.count }

    /// The first version with the gateways' status (``statusMigration``).
    static var statusVersion: Int { (migrations.firstIndex(of: statusMigration) ?? migrations.count - 1) + 1 }

    /// Brings the schema to ``latestVersion`` in one transaction. Many gateways may start at once:
    /// an advisory lock lets one migrate while the others wait and then find it done.
    ///
    /// - Throws: ``FleetError/schemaNewer(found:supported:)`` when the server is ahead of this build.
    static func migrate(_ connection: PGConnection) throws {
        let before = try version(connection)
        guard before != latestVersion else { return }
        do { try migrateLocked(connection) } catch let error as FleetError {
            // A gateway's or reader's role may not create anything: only the owner migrates.
            if case .server("42501", _) = error { throw FleetError.schemaBehind(found: before ?? 0, needed: latestVersion) }
            throw error
        }
    }

    /// The schema version on the server, `nil` when it has no fleet tables.
    static func version(_ connection: PGConnection) throws -> Int? {
        // Asked in two steps: a statement naming a missing table fails before it runs.
        guard try connection.execute("SELECT to_regclass('fleet_schema') IS NOT NULL").values.first?.first == "t" else { return nil }
        return try connection.execute("SELECT max(version) FROM fleet_schema").values.first?.first.flatMap { $0.flatMap { Int($0) } }
    }

    /// How long each statement of a migration may take, seconds.
    static let migrationSeconds = 3_600

    /// The migration itself, under the advisory lock, in one transaction (``FleetAdmin`` calls it
    /// directly to say what an owner without a privilege lacks).
    static func migrateLocked(_ connection: PGConnection) throws {
        try connection.execute("BEGIN")
        do {
            // Index builds on a large fleet, and waiting for another migrating gateway's lock, take
            // longer than a delivery's statements may.
            try connection.allowing(seconds: migrationSeconds) {
                try connection.execute("SELECT pg_advisory_xact_lock(7262022014)")
                try connection.execute("CREATE TABLE IF NOT EXISTS fleet_schema (version integer NOT NULL)")
                let found = try connection.execute("SELECT version FROM fleet_schema").values.first?.first.flatMap { $0.flatMap { Int($0) } }
                if found == nil { try connection.execute("INSERT INTO fleet_schema (version) VALUES (0)") }
                let current = found ?? 0
                guard current <= latestVersion else { throw FleetError.schemaNewer(found: current, supported: latestVersion) }
                for migration in migrations.dropFirst(current) {
                    for statement in migration { try connection.execute(statement) }
                }
                try connection.execute("UPDATE fleet_schema SET version = $1", [String(latestVersion)])
            }
            try connection.execute("COMMIT")
        } catch {
            if connection.isOpen { _ = try? connection.execute("ROLLBACK") }
            throw error
        }
    }
}
