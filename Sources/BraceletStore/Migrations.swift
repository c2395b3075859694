/// The schema, as an ordered list of migrations. Migration `n` (1-based) moves `PRAGMA user_version`
/// from `n - 1` to `n`. Never edit a migration that has shipped: append a new one.
///
/// The tables are documented in `BraceletStore.docc/Schema.md`.
enum Migrations {
    /// The columns of a slot row, as migration 1 created the table and migration 4 rebuilt it (with
    /// its row check): written once so the two cannot drift. Its text is part of both migrations'
    /// SQL, which SQLite keeps in the file, so it never changes (see MigrationTextTests).
    private static let slotColumns = """
        device_id INTEGER NOT NULL REFERENCES devices(id),
            start INTEGER NOT NULL,
            interval_s INTEGER NOT NULL,
            bpm INTEGER, bpm_quality INTEGER, breath REAL, breath_quality INTEGER, steps INTEGER,
            activity INTEGER, speed REAL, energy_cal INTEGER, active_cal INTEGER, skin_temp_c REAL,
            core_temp_c REAL, spo2 INTEGER, spo2_quality INTEGER, eda_us REAL, sleep_stage INTEGER,
            wearing INTEGER, battery INTEGER,
        """

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
            \(slotColumns)
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
        // 4: a check of every measurement row, so damage inside a row is found before it is summarised
        // (see SQLite/RowCheck.swift). A stored generated column cannot be added to a table, so slots
        // and beats are rebuilt with it.
        """
        CREATE TABLE slots_checked (
            \(slotColumns)
            row_check INTEGER GENERATED ALWAYS AS (bracelet_row_check(device_id, start, interval_s, bpm, bpm_quality,
                breath, breath_quality, steps, activity, speed, energy_cal, active_cal, skin_temp_c, core_temp_c, spo2,
                spo2_quality, eda_us, sleep_stage, wearing, battery)) STORED,
            PRIMARY KEY (device_id, start)
        ) WITHOUT ROWID;
        INSERT INTO slots_checked (device_id, start, interval_s, bpm, bpm_quality, breath, breath_quality, steps, activity,
            speed, energy_cal, active_cal, skin_temp_c, core_temp_c, spo2, spo2_quality, eda_us, sleep_stage, wearing, battery)
            SELECT device_id, start, interval_s, bpm, bpm_quality, breath, breath_quality, steps, activity, speed, energy_cal,
            active_cal, skin_temp_c, core_temp_c, spo2, spo2_quality, eda_us, sleep_stage, wearing, battery FROM slots;
        DROP TABLE slots;
        ALTER TABLE slots_checked RENAME TO slots;
        CREATE TABLE beats_checked (
            device_id INTEGER NOT NULL REFERENCES devices(id),
            time_ms INTEGER NOT NULL,
            rr_ms INTEGER,
            row_check INTEGER GENERATED ALWAYS AS (bracelet_row_check(device_id, time_ms, rr_ms)) STORED,
            PRIMARY KEY (device_id, time_ms)
        ) WITHOUT ROWID;
        INSERT INTO beats_checked (device_id, time_ms, rr_ms) SELECT device_id, time_ms, rr_ms FROM beats;
        DROP TABLE beats;
        ALTER TABLE beats_checked RENAME TO beats;
        """,
        // 5: the study participant (user) a device is assigned to, stamped on each outbox entry when
        // it is written and sent with its delivery (not part of the payload, so no hash changes);
        // and an index that answers the outbox's counts and ages without reading every payload
        // (those columns come after the payload in the row, so a table scan reads them all).
        """
        ALTER TABLE devices ADD COLUMN user_id TEXT;
        ALTER TABLE outbox ADD COLUMN user_id TEXT;
        CREATE INDEX outbox_by_state ON outbox(state, kind, created_at, next_attempt_at);
        """,
        // 6: what each stored summary was computed from, so `summarize --db` can serve the stored
        // summaries instead of recomputing every day from the raw rows: the settings (`basis`, see
        // ``SummaryStamp``) and, for days, the clock of the computation (a day computed before it
        // ended says "not over"). A sleep session no longer produced by its date's latest recompute
        // has a NULL basis. Rows written before this migration have NULL: unknown, so recomputed.
        """
        ALTER TABLE daily_summaries ADD COLUMN basis TEXT;
        ALTER TABLE daily_summaries ADD COLUMN computed_at INTEGER;
        ALTER TABLE sleep_sessions ADD COLUMN basis TEXT;
        """,
        // 7: beats packed, one row per device and UTC hour (see BeatChunk.swift): a row per beat made
        // inserting a night's beats, and checking them, the largest costs of an ingest. The old rows
        // are packed by `bracelet_beat_chunk` (SQLite/BeatChunkFunction.swift); the view `beats` shows
        // the chunks as the old rows, in plain SQL, for tools and ad-hoc queries. It cuts each chunk
        // into 1 KiB pieces first and each piece into records: a value is read whole on every access,
        // so records cut straight from an hour's chunk would read it once per beat.
        """
        CREATE TABLE beat_chunks (
            device_id INTEGER NOT NULL REFERENCES devices(id),
            start_ms INTEGER NOT NULL,
            beats BLOB NOT NULL,
            row_check INTEGER GENERATED ALWAYS AS (bracelet_row_check(device_id, start_ms, beats)) STORED,
            PRIMARY KEY (device_id, start_ms)
        ) WITHOUT ROWID;
        INSERT INTO beat_chunks (device_id, start_ms, beats)
            SELECT device_id, time_ms - ((time_ms % 3600000) + 3600000) % 3600000 AS hour, bracelet_beat_chunk(time_ms, rr_ms)
            FROM beats GROUP BY device_id, hour;
        DROP TABLE beats;
        CREATE VIEW beats (device_id, time_ms, rr_ms) AS
            WITH RECURSIVE piece_at (at) AS (
                SELECT 0 UNION ALL SELECT at + 1024 FROM piece_at WHERE at + 1024 < (SELECT max(length(beats)) FROM beat_chunks)
            ), record_at (at) AS (
                SELECT 0 UNION ALL SELECT at + 8 FROM record_at WHERE at + 8 < 1024
            ), piece AS MATERIALIZED (
                SELECT c.device_id, c.start_ms, substr(c.beats, piece_at.at + 1, 1024) AS p, min(1024, length(c.beats) - piece_at.at) AS n
                FROM beat_chunks c CROSS JOIN piece_at ON piece_at.at < length(c.beats)
            ), word AS MATERIALIZED (
                SELECT device_id, start_ms, hex(substr(p, record_at.at + 1, 8)) AS h FROM piece CROSS JOIN record_at ON record_at.at < n
            ), value AS (
                SELECT device_id, start_ms,
                (instr('123456789ABCDEF', substr(h, 1, 1)) * 16 + instr('123456789ABCDEF', substr(h, 2, 1))) +
                (instr('123456789ABCDEF', substr(h, 3, 1)) * 16 + instr('123456789ABCDEF', substr(h, 4, 1))) * 256 +
                (instr('123456789ABCDEF', substr(h, 5, 1)) * 16 + instr('123456789ABCDEF', substr(h, 6, 1))) * 65536 +
                (instr('123456789ABCDEF', substr(h, 7, 1)) * 16 + instr('123456789ABCDEF', substr(h, 8, 1))) * 16777216 AS offset,
                (instr('123456789ABCDEF', substr(h, 9, 1)) * 16 + instr('123456789ABCDEF', substr(h, 10, 1))) +
                (instr('123456789ABCDEF', substr(h, 11, 1)) * 16 + instr('123456789ABCDEF', substr(h, 12, 1))) * 256 +
                (instr('123456789ABCDEF', substr(h, 13, 1)) * 16 + instr('123456789ABCDEF', substr(h, 14, 1))) * 65536 +
                (instr('123456789ABCDEF', substr(h, 15, 1)) * 16 + instr('123456789ABCDEF', substr(h, 16, 1))) * 16777216 AS rr
                FROM word
            )
            SELECT device_id, start_ms + offset,
                CASE WHEN rr = 2147483648 THEN NULL WHEN rr > 2147483648 THEN rr - 4294967296 ELSE rr END
            FROM value;
        """,
        // 8: the local days whose summaries wait to be recomputed: recorded in the transaction that
        // stores the rows touching them, cleared in the one that stores their summaries.
        """
        CREATE TABLE pending_recompute (
            device_id INTEGER NOT NULL REFERENCES devices(id),
            local_date TEXT NOT NULL,
            PRIMARY KEY (device_id, local_date)
        ) WITHOUT ROWID;
        """,
        // 9: what scoring needs of a summary (the summary without its per-slot arrays, made when it
        // was computed), carried beside the payload so a delivery to the fleet database does not
        // decode a 0.6 MB document to make it. NULL when it was not made (older entries, kinds
        // other than day summaries and sleep sessions): the sink then makes it from the payload.
        """
        ALTER TABLE outbox ADD COLUMN score_input TEXT;
        """,
        // 10: page checksums (PageChecksums.swift): every page of the database file keeps a checksum
        // in 8 reserved bytes, verified whenever it is read from the file. Adding the reserved bytes
        // rewrites the file with VACUUM, which cannot run inside a transaction: `migrate` runs it just
        // before this migration, so a file at version 10 always has them (interrupted, the file stays
        // at 9 and converts again). The version keeps builds that do not write the checksums away
        // from the file.
        "-- 10: page checksums, added by PageChecksums.convert just before this migration",
        // 11: the participant record: each setting of the person wearing a device, with the local
        // date from which it holds (`0000-01-01`: every day), so a change applies from a date on and
        // older days keep what they were computed with. A file from before gets the record from its
        // summaries' bases (the settings each day was computed with, `tz=...;slot=...;quality=...;
        // hrmax=...;height=...;goal=...`): a new row wherever a setting changed from one day to the
        // next. The basis keeps only the maximum heart rate: with the age of the day's vitality row
        // it becomes age and formula when one of the formulas gives it, else a measured maximum; no
        // age and the default-age maximum (180) stay unknown, as they were.
        """
        CREATE TABLE participant_settings (
            device_id INTEGER NOT NULL REFERENCES devices(id),
            setting TEXT NOT NULL CHECK (setting IN ('tz', 'age', 'hr_max', 'hrmax_formula', 'height_cm', 'step_goal',
                'slot_seconds', 'min_quality')),
            from_date TEXT NOT NULL,
            value TEXT,
            set_at INTEGER NOT NULL,
            PRIMARY KEY (device_id, setting, from_date)
        ) WITHOUT ROWID;
        WITH RECURSIVE stamped AS (
            SELECT s.device_id, s.local_date, s.basis, json_extract(v.json, '$.age') AS age,
                lag(s.basis) OVER (PARTITION BY s.device_id ORDER BY s.local_date) AS previous,
                row_number() OVER (PARTITION BY s.device_id ORDER BY s.local_date) AS n
            FROM daily_summaries s LEFT JOIN vitality_metrics v ON v.device_id = s.device_id AND v.local_date = s.local_date
            WHERE s.kind = 'daily' AND s.basis IS NOT NULL
        ), runs AS (
            SELECT device_id, CASE WHEN n = 1 THEN '0000-01-01' ELSE local_date END AS from_date, age, basis || ';' AS rest
            FROM stamped WHERE previous IS NULL OR previous <> basis
        ), fields (device_id, from_date, age, rest, key, value) AS (
            SELECT device_id, from_date, age, rest, NULL, NULL FROM runs
            UNION ALL
            SELECT device_id, from_date, age, substr(rest, instr(rest, ';') + 1), substr(rest, 1, instr(rest, '=') - 1),
                substr(rest, instr(rest, '=') + 1, instr(rest, ';') - instr(rest, '=') - 1)
            FROM fields WHERE rest <> ''
        ), settings (device_id, from_date, setting, value) AS (
            SELECT device_id, from_date, CASE key WHEN 'tz' THEN 'tz' WHEN 'slot' THEN 'slot_seconds' WHEN 'quality' THEN 'min_quality'
                WHEN 'height' THEN 'height_cm' ELSE 'step_goal' END, value
            FROM fields WHERE key IN ('tz', 'slot', 'quality', 'height', 'goal')
            UNION ALL
            SELECT device_id, from_date, 'age', CAST(age AS TEXT) FROM fields WHERE key = 'hrmax' AND age IS NOT NULL
            UNION ALL
            SELECT device_id, from_date, 'hrmax_formula',
                CASE WHEN abs(CAST(value AS REAL) - (208 - 0.7 * age)) >= 0.001 AND abs(CAST(value AS REAL) - (220 - age)) < 0.001
                    THEN '220' ELSE '208' END
            FROM fields WHERE key = 'hrmax' AND age IS NOT NULL
            UNION ALL
            SELECT device_id, from_date, 'hr_max', CAST(CAST(round(CAST(value AS REAL)) AS INTEGER) AS TEXT)
            FROM fields WHERE key = 'hrmax' AND CASE WHEN age IS NULL THEN abs(CAST(value AS REAL) - 180) >= 0.001
                ELSE abs(CAST(value AS REAL) - (208 - 0.7 * age)) >= 0.001 AND abs(CAST(value AS REAL) - (220 - age)) >= 0.001 END
        ), changed AS (
            SELECT device_id, from_date, setting, value,
                lag(value) OVER (PARTITION BY device_id, setting ORDER BY from_date) AS previous,
                row_number() OVER (PARTITION BY device_id, setting ORDER BY from_date) AS n
            FROM settings
        )
        INSERT INTO participant_settings (device_id, setting, from_date, value, set_at)
            SELECT device_id, setting, from_date, value, CAST(strftime('%s', 'now') AS INTEGER) FROM changed
            WHERE n = 1 OR previous IS NOT value;
        """,
        // 12: each summary document kept once, compressed. `documents` holds the canonical JSON of
        // every version of every daily summary and sleep session, compressed with zstd (Zstd.swift),
        // under its content hash; the summary rows and the outbox entries refer to it by that hash
        // instead of each keeping a copy (an outbox payload keeps its envelope with "summary":null,
        // see StoredEnvelope.swift). A superseded version's document stays while its outbox entry
        // does, and outbox rows are never deleted. Copies that match their hash are moved first, so
        // a damaged copy never takes the place of an intact one; a damaged row keeps its damaged
        // document (for `db check` to report), and an outbox payload not in the envelope layout
        // stays whole.
        """
        CREATE TABLE documents (
            content_hash TEXT PRIMARY KEY,
            size INTEGER NOT NULL,
            body BLOB NOT NULL
        );
        INSERT OR IGNORE INTO documents (content_hash, size, body)
            SELECT content_hash, length(CAST(json AS BLOB)), bracelet_compress(json) FROM daily_summaries
            WHERE bracelet_sha256(json) = content_hash;
        INSERT OR IGNORE INTO documents (content_hash, size, body)
            SELECT content_hash, length(CAST(json AS BLOB)), bracelet_compress(json) FROM sleep_sessions
            WHERE bracelet_sha256(json) = content_hash;
        INSERT OR IGNORE INTO documents (content_hash, size, body)
            SELECT content_hash, length(CAST(summary AS BLOB)), bracelet_compress(summary)
            FROM (SELECT content_hash, bracelet_envelope_summary(payload) AS summary FROM outbox)
            WHERE bracelet_sha256(summary) = content_hash;
        INSERT OR IGNORE INTO documents (content_hash, size, body)
            SELECT content_hash, length(CAST(json AS BLOB)), bracelet_compress(json) FROM daily_summaries;
        INSERT OR IGNORE INTO documents (content_hash, size, body)
            SELECT content_hash, length(CAST(json AS BLOB)), bracelet_compress(json) FROM sleep_sessions;
        UPDATE outbox SET payload = bracelet_envelope_reference(payload)
            WHERE bracelet_sha256(bracelet_envelope_summary(payload)) = content_hash;
        ALTER TABLE daily_summaries DROP COLUMN json;
        ALTER TABLE sleep_sessions DROP COLUMN json;
        """,
        // 13: the bracelets a gateway keeps synced (its enrolments) and what it last learnt of each.
        // An endpoint is `ble:ADDRESS` or `unix:PATH`; the person's settings given at enrolment are
        // kept as given (NULL: not given) until a sync has read the serial and written them into the
        // bracelet's participant record (DeviceSettings), never replaced by a default.
        """
        CREATE TABLE gateway_enrolments (
            endpoint TEXT PRIMARY KEY,
            address_type TEXT CHECK (address_type IN ('public', 'random')),
            user_id TEXT,
            tz TEXT,
            age INTEGER,
            hr_max INTEGER,
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
        ) WITHOUT ROWID;
        """,
        // 14: beats in 6 bytes instead of 8 (BeatChunk.swift): a 3-byte offset within the hour and a
        // 3-byte interval, 55 kB less per V2 day, most of what a day takes. Only a chunk that matches
        // its row check is narrowed (its check is recomputed with it), so damage is never turned into
        // a valid row; a damaged chunk stays as it was, for `db check` to report. The view `beats`
        // reads the new records, still in plain SQL, in pieces of 1020 bytes (whole records).
        """
        UPDATE beat_chunks SET beats = bracelet_narrow_beats(beats)
            WHERE row_check IS bracelet_row_check(device_id, start_ms, beats) AND bracelet_narrow_beats(beats) IS NOT NULL;
        DROP VIEW beats;
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
            FROM value;
        """,
        // 15: an enrolment keeps the whole participant change given with it (`gateway enroll` takes
        // the options of `person set`: zone, age, maximum heart rate and its formula, height, step
        // goal, slot length, quality) until a sync writes it into the record: one JSON object of
        // setting name -> text, as the record stores them. The zone, age and maximum it kept in
        // columns of their own move into it.
        """
        ALTER TABLE gateway_enrolments ADD COLUMN settings TEXT;
        UPDATE gateway_enrolments SET settings =
            nullif(json_patch('{}', json_object('age', CAST(age AS TEXT), 'hr_max', CAST(hr_max AS TEXT), 'tz', tz)), '{}');
        ALTER TABLE gateway_enrolments DROP COLUMN tz;
        ALTER TABLE gateway_enrolments DROP COLUMN age;
        ALTER TABLE gateway_enrolments DROP COLUMN hr_max;
        """,
        // 16: standard health sensors (straps, oximeters, thermometers) kept as devices: what a
        // device is when it is one (its Device Information maker and model, NULL for a bracelet),
        // and what the gateway keeps of an enrolled one's stream (seconds with a value stored since
        // enrolment, the arrival of the latest, the profiles it streams: NULL until a session finds
        // it is a sensor, so a bracelet's enrolment never has them).
        """
        ALTER TABLE devices ADD COLUMN sensor TEXT;
        ALTER TABLE gateway_enrolments ADD COLUMN sensor TEXT;
        ALTER TABLE gateway_enrolments ADD COLUMN samples_kept INTEGER NOT NULL DEFAULT 0 CHECK (samples_kept >= 0);
        ALTER TABLE gateway_enrolments ADD COLUMN last_sample_at INTEGER;
        """,
        // 17: the link an enrolled device needs, pinned: given at enrolment (`gateway enroll
        // --security`) or learned once over a secured link, and never lowered by what an
        // advertisement says, so a device at the address that offers less is refused. NULL: not
        // known yet (the device is connected unencrypted and secured as far as it asks for).
        """
        ALTER TABLE gateway_enrolments ADD COLUMN link_security TEXT CHECK (link_security IN ('encrypted', 'authenticated'));
        """,
        // 18: URLs in what the delivery log and the outbox kept are shown without their user info
        // and query values (URLRedaction), as sinks now write them: a webhook URL's `user:password@`
        // or `?token=` of an earlier run must not stay readable in the file.
        """
        UPDATE delivery_log SET sink = bracelet_redact_urls(sink) WHERE sink <> bracelet_redact_urls(sink);
        UPDATE delivery_log SET error = bracelet_redact_urls(error) WHERE error <> bracelet_redact_urls(error);
        UPDATE outbox SET last_error = bracelet_redact_urls(last_error) WHERE last_error <> bracelet_redact_urls(last_error);
        """,
        // 19: the delivery log by sink, and by sink and outcome: `gateway status` and every `/metrics`
        // scrape read each sink's last attempt, last success and failures since, which were three
        // scans of the whole log (it grows by a row per attempt, for as long as the gateway runs).
        """
        CREATE INDEX delivery_log_by_sink ON delivery_log(sink);
        CREATE INDEX delivery_log_by_sink_outcome ON delivery_log(sink, outcome);
        """,
    ]

    /// The schema version this build writes.
    static var latestVersion: Int { all.count }

    /// Applies, in order and each in its own transaction, every migration above the file's
    /// `user_version`, up to `target`. Refuses a file whose version is newer than this build, a file
    /// another program made or changed (see ``verify(_:)``), and a version no build writes (negative).
    ///
    /// The version is re-read inside each write transaction, so two processes opening a new file at
    /// the same moment do not both run the same migration.
    static func migrate(_ db: Database, upTo target: Int = latestVersion) throws {
        let found = try checkedVersion(db)
        if found == 0 { try requireNoForeignObjects(db) }
        let goal = min(target, latestVersion)
        var current = found
        if found == 0, goal == latestVersion {
            // A new file: its page checksums first (nothing to copy yet), then the latest schema
            // in one transaction, unless another process made it meanwhile.
            try PageChecksums.convert(db)
            current = try db.transaction {
                let version = try checkedVersion(db)
                guard version == 0 else { return version }
                for statement in LatestSchema.statements { try db.execute(statement) }
                try db.execute("PRAGMA user_version = \(latestVersion)")
                return latestVersion
            }
        }
        while current < goal {
            if current + 1 == pageChecksumVersion { try PageChecksums.convert(db) }
            // A new file takes its migrations up to the page-checksum conversion, and those after
            // it, a transaction each (a commit and its sync per migration made every new database
            // cost 15 syncs); a crash in between leaves it at version 0, or at the conversion, to
            // go on from. An older file goes one migration per transaction, each of which may
            // rewrite much of it.
            let last = found == 0 ? (current < pageChecksumVersion - 1 ? pageChecksumVersion - 1 : goal) : current + 1
            current = try db.transaction {
                var version = try checkedVersion(db)
                while version < min(last, goal) {
                    try db.execute(all[version])
                    version += 1
                    try db.execute("PRAGMA user_version = \(version)")
                }
                return version
            }
        }
        try requirePageChecksums(db, version: current)
        if found > 0, [documentsVersion, narrowBeatsVersion].contains(where: { found < $0 && current >= $0 }) { giveBackFreedPages(db) }
        if goal == latestVersion { try verify(db) }
    }

    /// The first schema version that keeps each summary once (`documents`).
    static let documentsVersion = 12

    /// The first schema version whose beats take 6 bytes each (a quarter of the beat chunks' pages freed).
    static let narrowBeatsVersion = 14

    /// Rewrites the file without the pages the move to `documents` freed (two copies of every
    /// summary, 1.2 MB per day, now one compressed copy of 35 kB) or the narrower beats freed (64 kB
    /// a day): without it a converted file keeps its old size until new rows fill the free pages. A `VACUUM` that fails (a full disk) leaves
    /// the file as it was, converted and whole, only larger: the open goes on.
    static func giveBackFreedPages(_ db: Database) {
        guard db.path != ":memory:" else { return }
        guard (try? db.execute("VACUUM")) != nil else { return }
        // Kept from finishing, the rest is copied by this connection's closing checkpoint.
        _ = db.checkpointCompletely()
    }

    /// The first schema version whose pages carry checksums.
    static let pageChecksumVersion = 10

    /// Checks, without writing, that the file holds this build's schema: for commands that only read.
    /// An empty file is ``StoreError/noBraceletData(path:)``.
    static func checkReadable(_ db: Database) throws {
        let found = try checkedVersion(db)
        if found == 0 {
            try requireNoForeignObjects(db)
            throw StoreError.noBraceletData(path: db.path)
        }
        try requirePageChecksums(db, version: found)
        try verify(db)
    }

    /// A file at ``pageChecksumVersion`` or later whose pages carry no checksums had its header
    /// damaged or was rewritten by another program: refused before any page is trusted.
    static func requirePageChecksums(_ db: Database, version: Int) throws {
        guard version >= pageChecksumVersion, db.path != ":memory:", !PageChecksums.present(db) else { return }
        throw StoreError.corrupt(path: db.path, detail: "its header says the pages carry no checksums, which every bracelet database of schema \(pageChecksumVersion) or later has: the first page was damaged or another program rewrote the file")
    }

    /// Whether the file is a bracelet database of an older schema (version 1 up to this build's).
    static func needsUpgrade(_ db: Database) throws -> Bool {
        let found = try checkedVersion(db)
        return found > 0 && found < latestVersion
    }

    /// `user_version`, refused when it is one no build of bracelet writes.
    static func checkedVersion(_ db: Database) throws -> Int {
        let found = try db.userVersion()
        if found < 0 {
            throw StoreError.foreignSchema(path: db.path, detail: "its schema version is \(found), which no build of bracelet writes")
        }
        if found > latestVersion {
            throw StoreError.schemaNewerThanBuild(path: db.path, found: found, supported: latestVersion)
        }
        return found
    }

    /// A file at version 0 must be empty: tables there belong to another program, and adding
    /// bracelet's tables beside them would mix two programs' data in one file.
    static func requireNoForeignObjects(_ db: Database) throws {
        let names = try schemaObjects(db).map { $0[1] }
        if !names.isEmpty {
            throw StoreError.foreignSchema(path: db.path, detail: "it holds tables bracelet did not create (\(names.prefix(5).joined(separator: ", ")))")
        }
    }

    /// Checks that the tables, indexes, views and triggers are exactly the ones the migrations
    /// create, so a file changed by another program is refused at open instead of failing later with
    /// an SQL error halfway through a command.
    static func verify(_ db: Database) throws {
        let found = try schemaObjects(db)
        // The schema of this build, known by its digest: no need to build it again in memory.
        if schemaDigest(found) == latestSchemaDigest { return }
        let expected = try expectedObjects()
        guard found != expected else { return }
        let foundNames = Set(found.map { "\($0[0]) \($0[1])" }), expectedNames = Set(expected.map { "\($0[0]) \($0[1])" })
        let missing = expectedNames.subtracting(foundNames).sorted(), extra = foundNames.subtracting(expectedNames).sorted()
        let changed = Set(found.map { $0.joined(separator: "\u{0}") }).subtracting(expected.map { $0.joined(separator: "\u{0}") })
            .map { $0.split(separator: "\u{0}").prefix(2).joined(separator: " ") }.filter { !extra.contains($0) }.sorted()
        var parts: [String] = []
        if !missing.isEmpty { parts.append("missing " + missing.joined(separator: ", ")) }
        if !extra.isEmpty { parts.append("not bracelet's: " + extra.joined(separator: ", ")) }
        if !changed.isEmpty { parts.append("changed: " + changed.joined(separator: ", ")) }
        throw StoreError.foreignSchema(path: db.path, detail: "its tables differ from bracelet's schema version \(latestVersion) (\(parts.joined(separator: "; ")))")
    }

    /// Type, name, table and SQL of every schema object except SQLite's own, ordered by type and name.
    static func schemaObjects(_ db: Database) throws -> [[String]] {
        let statement = try db.prepare("""
            SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_master
            WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY type, name
            """)
        var rows: [[String]] = []
        while try statement.step() {
            rows.append((0..<4).map { statement.text(at: Int32($0)) ?? "" })
        }
        return rows
    }

    /// ``schemaDigest(_:)`` of ``expectedObjects()``: a file whose schema has it is bracelet's at
    /// ``latestVersion``, and ``verify(_:)`` then does not build the expected schema in memory
    /// (every migration run again, which cost every command that opens a database about 80 million
    /// instructions, more than a third of `summarize --db`'s own work). A stale value (a migration
    /// added, this line not updated) costs only that time: the schema is then compared with the
    /// one the migrations build. `SchemaGuardTests.theSchemaDigestIsCurrent` prints the value to put here.
    static let latestSchemaDigest = "e45a96a0b4c86a665d4cd0fd5e5d71e9e0dc3bffe28915835eddf5de4f98c506"

    /// SHA-256 hex of schema objects (as ``schemaObjects(_:)`` lists them) with ``latestVersion``
    /// in front: a digest of an older schema version cannot stand for this one.
    static func schemaDigest(_ objects: [[String]]) -> String {
        var text = "\(latestVersion)"
        for object in objects { text += "\u{1}" + object.joined(separator: "\u{0}") }
        return SHA256.hex(Array(text.utf8))
    }

    /// The schema objects of a new file at ``latestVersion``, built once in memory.
    static func expectedObjects() throws -> [[String]] {
        try expectedSchema.get()
    }

    private static let expectedSchema = Result<[[String]], any Error> {
        let memory = try Database(path: ":memory:")
        for migration in all { try memory.execute(migration) }
        return try schemaObjects(memory)
    }
}
