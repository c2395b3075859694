/// The schema objects of a new file at ``Migrations/latestVersion``, as `CREATE` statements in an
/// order that makes them (tables, then indexes, triggers and views): what ``Migrations/all`` leaves
/// in `sqlite_master`, taken from there. A new file is made from these in one transaction instead
/// of by the nineteen migrations, whose table rebuilds re-parse the whole schema again and again
/// (85 M instructions, most of opening a new database). The migrations stay the truth: a test
/// compares the schema these make with the one the migrations make, and ``Migrations/verify(_:)``
/// checks every file against the pinned digest.
enum LatestSchema {
    /// The statements, each one object's SQL as SQLite keeps it.
    static let statements: [String] = [
        #"""
        CREATE TABLE beat_chunks (
            device_id INTEGER NOT NULL REFERENCES devices(id),
            start_ms INTEGER NOT NULL,
            beats BLOB NOT NULL,
            row_check INTEGER GENERATED ALWAYS AS (bracelet_row_check(device_id, start_ms, beats)) STORED,
            PRIMARY KEY (device_id, start_ms)
        ) WITHOUT ROWID
        """#,
        #"""
        CREATE TABLE daily_summaries (
            device_id INTEGER NOT NULL REFERENCES devices(id),
            local_date TEXT NOT NULL,
            kind TEXT NOT NULL,
            version INTEGER NOT NULL,
            content_hash TEXT NOT NULL,
            updated_at INTEGER NOT NULL, basis TEXT, computed_at INTEGER,
            PRIMARY KEY (device_id, local_date, kind)
        )
        """#,
        #"""
        CREATE TABLE delivery_log (
            id INTEGER PRIMARY KEY,
            outbox_id INTEGER NOT NULL REFERENCES outbox(id),
            sink TEXT NOT NULL,
            attempt INTEGER NOT NULL,
            at INTEGER NOT NULL,
            outcome TEXT NOT NULL,
            http_status INTEGER,
            error TEXT
        )
        """#,
        #"""
        CREATE TABLE devices (
            id INTEGER PRIMARY KEY,
            serial TEXT NOT NULL UNIQUE,
            model TEXT,
            first_seen_at INTEGER NOT NULL,
            last_seen_at INTEGER NOT NULL
        , user_id TEXT, sensor TEXT)
        """#,
        #"""
        CREATE TABLE documents (
            content_hash TEXT PRIMARY KEY,
            size INTEGER NOT NULL,
            body BLOB NOT NULL
        )
        """#,
        #"""
        CREATE TABLE gateway_enrolments (
            endpoint TEXT PRIMARY KEY,
            address_type TEXT CHECK (address_type IN ('public', 'random')),
            user_id TEXT,
            passkey INTEGER CHECK (passkey BETWEEN 0 AND 999999),
            enrolled_at INTEGER NOT NULL,
            serial TEXT,
            state TEXT NOT NULL DEFAULT 'enrolled',
            last_heard_at INTEGER,
            last_sync_at INTEGER,
            last_attempt_at INTEGER,
            failures INTEGER NOT NULL DEFAULT 0 CHECK (failures >= 0),
            last_error TEXT,
            battery INTEGER,
            wearing INTEGER,
            backlog_bytes INTEGER,
            offset_minutes INTEGER
        , settings TEXT, sensor TEXT, samples_kept INTEGER NOT NULL DEFAULT 0 CHECK (samples_kept >= 0), last_sample_at INTEGER, link_security TEXT CHECK (link_security IN ('encrypted', 'authenticated'))) WITHOUT ROWID
        """#,
        #"""
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
        , user_id TEXT, score_input TEXT)
        """#,
        #"""
        CREATE TABLE participant_settings (
            device_id INTEGER NOT NULL REFERENCES devices(id),
            setting TEXT NOT NULL CHECK (setting IN ('tz', 'age', 'hr_max', 'hrmax_formula', 'height_cm', 'step_goal',
                'slot_seconds', 'min_quality')),
            from_date TEXT NOT NULL,
            value TEXT,
            set_at INTEGER NOT NULL,
            PRIMARY KEY (device_id, setting, from_date)
        ) WITHOUT ROWID
        """#,
        #"""
        CREATE TABLE pending_recompute (
            device_id INTEGER NOT NULL REFERENCES devices(id),
            local_date TEXT NOT NULL,
            PRIMARY KEY (device_id, local_date)
        ) WITHOUT ROWID
        """#,
        #"""
        CREATE TABLE sleep_sessions (
            device_id INTEGER NOT NULL REFERENCES devices(id),
            start INTEGER NOT NULL,
            stop INTEGER NOT NULL,
            local_date TEXT NOT NULL,
            version INTEGER NOT NULL,
            content_hash TEXT NOT NULL,
            updated_at INTEGER NOT NULL, basis TEXT,
            PRIMARY KEY (device_id, start)
        )
        """#,
        #"""
        CREATE TABLE "slots" (
            device_id INTEGER NOT NULL REFERENCES devices(id),
            start INTEGER NOT NULL,
            interval_s INTEGER NOT NULL,
            bpm INTEGER, bpm_quality INTEGER, breath REAL, breath_quality INTEGER, steps INTEGER,
            activity INTEGER, speed REAL, energy_cal INTEGER, active_cal INTEGER, skin_temp_c REAL,
            core_temp_c REAL, spo2 INTEGER, spo2_quality INTEGER, eda_us REAL, sleep_stage INTEGER,
            wearing INTEGER, battery INTEGER,
            row_check INTEGER GENERATED ALWAYS AS (bracelet_row_check(device_id, start, interval_s, bpm, bpm_quality,
                breath, breath_quality, steps, activity, speed, energy_cal, active_cal, skin_temp_c, core_temp_c, spo2,
                spo2_quality, eda_us, sleep_stage, wearing, battery)) STORED,
            PRIMARY KEY (device_id, start)
        ) WITHOUT ROWID
        """#,
        #"""
        CREATE TABLE transfers (
            device_id INTEGER NOT NULL REFERENCES devices(id),
            file_kind TEXT NOT NULL,
            sealed_size INTEGER NOT NULL CHECK (sealed_size >= 0),
            committed INTEGER NOT NULL DEFAULT 0 CHECK (committed >= 0 AND committed <= sealed_size),
            crc INTEGER,
            state TEXT NOT NULL CHECK (state IN ('receiving', 'committed', 'erased')),
            updated_at INTEGER NOT NULL,
            PRIMARY KEY (device_id, file_kind)
        )
        """#,
        #"""
        CREATE TABLE vitality_metrics (
            device_id INTEGER NOT NULL REFERENCES devices(id),
            local_date TEXT NOT NULL,
            json TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            updated_at INTEGER NOT NULL,
            PRIMARY KEY (device_id, local_date)
        )
        """#,
        #"""
        CREATE INDEX delivery_log_by_outbox ON delivery_log(outbox_id)
        """#,
        #"""
        CREATE INDEX delivery_log_by_sink ON delivery_log(sink)
        """#,
        #"""
        CREATE INDEX delivery_log_by_sink_outcome ON delivery_log(sink, outcome)
        """#,
        #"""
        CREATE INDEX outbox_by_state ON outbox(state, kind, created_at, next_attempt_at)
        """#,
        #"""
        CREATE INDEX outbox_pending_by_device ON outbox(device, id) WHERE state = 'pending'
        """#,
        #"""
        CREATE VIEW beats (device_id, time_ms, rr_ms) AS
            WITH RECURSIVE piece_at (at) AS (
                SELECT 0 UNION ALL SELECT at + 1020 FROM piece_at WHERE at + 1020 < (SELECT max(length(beats)) FROM beat_chunks)
            ), record_at (at) AS (
                SELECT 0 UNION ALL SELECT at + 6 FROM record_at WHERE at + 6 < 1020
            ), piece AS MATERIALIZED (
                SELECT c.device_id, c.start_ms, substr(c.beats, piece_at.at + 1, 1020) AS p, min(1020, length(c.beats) - piece_at.at) AS n
                FROM beat_chunks c CROSS JOIN piece_at ON piece_at.at < length(c.beats)
            ), word AS MATERIALIZED (
                SELECT device_id, start_ms, hex(substr(p, record_at.at + 1, 6)) AS h FROM piece CROSS JOIN record_at ON record_at.at < n
            ), value AS (
                SELECT device_id, start_ms,
                (instr('123456789ABCDEF', substr(h, 1, 1)) * 16 + instr('123456789ABCDEF', substr(h, 2, 1))) + (instr('123456789ABCDEF', substr(h, 3, 1)) * 16 + instr('123456789ABCDEF', substr(h, 4, 1))) * 256 + (instr('123456789ABCDEF', substr(h, 5, 1)) * 16 + instr('123456789ABCDEF', substr(h, 6, 1))) * 65536 AS offset,
                (instr('123456789ABCDEF', substr(h, 7, 1)) * 16 + instr('123456789ABCDEF', substr(h, 8, 1))) + (instr('123456789ABCDEF', substr(h, 9, 1)) * 16 + instr('123456789ABCDEF', substr(h, 10, 1))) * 256 + (instr('123456789ABCDEF', substr(h, 11, 1)) * 16 + instr('123456789ABCDEF', substr(h, 12, 1))) * 65536 AS rr
                FROM word
            )
            SELECT device_id, start_ms + offset,
                CASE WHEN rr = 8388608 THEN NULL WHEN rr > 8388608 THEN rr - 16777216 ELSE rr END
            FROM value
        """#,
    ]
}
