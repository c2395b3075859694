/// The schema, as an ordered list of migrations. Migration `n` (1-based) moves `PRAGMA user_version`
/// from `n - 1` to `n`. Never edit a migration that has shipped: append a new one.
///
/// The tables are documented in `BraceletStore.docc/Schema.md`.
enum Migrations {
    static let all: [String] = [
        // 1: devices and what they measured.
        """
        CREATE TABLE devices (
            id INTEGER PRIMARY KEY,
            serial TEXT NOT NULL UNIQUE,
            model TEXT,
            first_seen_at INTEGER NOT NULL,
            last_seen_at INTEGER NOT NULL
        );
        CREATE TABLE slots (
            device_id INTEGER NOT NULL REFERENCES devices(id),
            start INTEGER NOT NULL,
            interval_s INTEGER NOT NULL,
            bpm INTEGER, bpm_quality INTEGER, breath REAL, breath_quality INTEGER, steps INTEGER,
            activity INTEGER, speed REAL, energy_cal INTEGER, active_cal INTEGER, skin_temp_c REAL,
            core_temp_c REAL, spo2 INTEGER, spo2_quality INTEGER, eda_us REAL, sleep_stage INTEGER,
            wearing INTEGER, battery INTEGER,
            PRIMARY KEY (device_id, start)
        ) WITHOUT ROWID;
        CREATE TABLE beats (
            device_id INTEGER NOT NULL REFERENCES devices(id),
            time_ms INTEGER NOT NULL,
            rr_ms INTEGER,
            PRIMARY KEY (device_id, time_ms)
        ) WITHOUT ROWID;
        CREATE TABLE transfers (
            device_id INTEGER NOT NULL REFERENCES devices(id),
            file_kind TEXT NOT NULL,
            sealed_size INTEGER NOT NULL CHECK (sealed_size >= 0),
            committed INTEGER NOT NULL DEFAULT 0 CHECK (committed >= 0 AND committed <= sealed_size),
            crc INTEGER,
            state TEXT NOT NULL CHECK (state IN ('receiving', 'committed', 'erased')),
            updated_at INTEGER NOT NULL,
            PRIMARY KEY (device_id, file_kind)
        );
        """,
        // 2: what is computed from the measurements.
        """
        CREATE TABLE daily_summaries (
            device_id INTEGER NOT NULL REFERENCES devices(id),
            local_date TEXT NOT NULL,
            kind TEXT NOT NULL,
            version INTEGER NOT NULL,
            json TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            updated_at INTEGER NOT NULL,
            PRIMARY KEY (device_id, local_date, kind)
        );
        CREATE TABLE sleep_sessions (
            device_id INTEGER NOT NULL REFERENCES devices(id),
            start INTEGER NOT NULL,
            stop INTEGER NOT NULL,
            local_date TEXT NOT NULL,
            version INTEGER NOT NULL,
            json TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            updated_at INTEGER NOT NULL,
            PRIMARY KEY (device_id, start)
        );
        CREATE TABLE vitality_metrics (
            device_id INTEGER NOT NULL REFERENCES devices(id),
            local_date TEXT NOT NULL,
            json TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            updated_at INTEGER NOT NULL,
            PRIMARY KEY (device_id, local_date)
        );
        """,
        // 3: the way out: the outbox and what happened to each delivery attempt.
        """
        CREATE TABLE outbox (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            key TEXT NOT NULL UNIQUE,
            kind TEXT NOT NULL,
            device TEXT NOT NULL,
            local_date TEXT NOT NULL,
            version INTEGER NOT NULL,
            content_hash TEXT NOT NULL,
            payload TEXT NOT NULL,
            state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'dead')),
            attempts INTEGER NOT NULL DEFAULT 0,
            next_attempt_at INTEGER NOT NULL,
            last_error TEXT,
            created_at INTEGER NOT NULL,
            delivered_at INTEGER
        );
        CREATE INDEX outbox_pending_by_device ON outbox(device, id) WHERE state = 'pending';
        CREATE TABLE delivery_log (
            id INTEGER PRIMARY KEY,
            outbox_id INTEGER NOT NULL REFERENCES outbox(id),
            sink TEXT NOT NULL,
            attempt INTEGER NOT NULL,
            at INTEGER NOT NULL,
            outcome TEXT NOT NULL,
            http_status INTEGER,
            error TEXT
        );
        CREATE INDEX delivery_log_by_outbox ON delivery_log(outbox_id);
        """,
        // 4: the study participant (user) a device is assigned to, stamped on each outbox entry when
        // it is written and sent with its delivery (not part of the payload, so no hash changes);
        // and an index that answers the outbox's counts and ages without reading every payload
        // (those columns come after the payload in the row, so a table scan reads them all).
        """
        ALTER TABLE devices ADD COLUMN user_id TEXT;
        ALTER TABLE outbox ADD COLUMN user_id TEXT;
        CREATE INDEX outbox_by_state ON outbox(state, kind, created_at, next_attempt_at);
        """,
    ]

    /// The schema version this build writes.
    static var latestVersion: Int { all.count }

    /// Applies, in order and each in its own transaction, every migration above the file's
    /// `user_version`, up to `target`. Refuses a file whose version is newer than this build.
    ///
    /// The version is re-read inside each write transaction, so two processes opening a new file at
    /// the same moment do not both run the same migration.
    static func migrate(_ db: Database, upTo target: Int = latestVersion) throws {
        let found = try db.userVersion()
        if found > latestVersion {
            throw StoreError.schemaNewerThanBuild(path: db.path, found: found, supported: latestVersion)
        }
        let goal = min(target, latestVersion)
        var current = found
        while current < goal {
            current = try db.transaction {
                let version = try db.userVersion()
                guard version < goal else { return version }
                try db.execute(all[version])
                try db.execute("PRAGMA user_version = \(version + 1)")
                return version + 1
            }
        }
    }
}
