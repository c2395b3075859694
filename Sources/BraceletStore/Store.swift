import BraceletProtocol
import Foundation

/// The bracelet database: devices, raw slots and beats, transfer progress, summaries, the outbox and
/// the delivery log, in one SQLite file (WAL, full fsync, created with mode 0600).
///
/// Open it with ``init(path:now:)``; the schema is migrated to this build's version on open. One
/// `Store` owns one connection and serialises every call with a lock, so it can be shared between
/// tasks. Several processes may open the same file: SQLite's locks and the busy timeout coordinate
/// them, and every write runs in a `BEGIN IMMEDIATE` transaction; ``transaction(_:)`` groups several
/// calls into one. Statements are compiled once per connection and reused.
///
/// Every call blocks its thread on disk I/O (and, with another writer, on its lock): call it from a
/// thread of your own or a dispatch queue, never from a task on Swift's cooperative thread pool.
public final class Store: @unchecked Sendable {
    /// The database file path.
    public let path: String
    let db: Database
    /// Recursive, so that calls made inside ``transaction(_:)`` on the same thread join it.
    let lock = NSRecursiveLock()
    /// How deep the current thread is in ``locked(_:)`` calls (guarded by `lock`).
    private var depth = 0
    /// Whether a ``loading(_:)`` switched the journal and has not ended (guarded by `lock`).
    var loadOpen = false
    /// `PRAGMA data_version` when that load began in a database without samples (nil: none; guarded by `lock`).
    var loadStart: Int64?
    /// The clock used for `created_at`, `updated_at` and the like, in Unix milliseconds.
    let now: @Sendable () -> Int64
    /// The compression context of the documents this connection writes (guarded by `lock`; made at
    /// the first one).
    lazy var compressor = Zstd.Compressor()

    /// Opens (creating when missing) the database at `path` and migrates it to the current schema.
    ///
    /// - Parameters:
    ///   - path: the database file. A new file is created with mode 0600.
    ///   - now: the clock, Unix milliseconds; inject one in tests.
    ///   - busyTimeoutMilliseconds: how long a write waits for another process's lock before it fails
    ///     with ``StoreError/locked(path:detail:)``.
    ///   - readOnly: open for reading only: nothing is created or written, and a file without a
    ///     bracelet schema is refused; only a bracelet database of an older schema is migrated.
    /// - Throws: ``StoreError`` (cannot open, not a database, locked, schema newer than this build,
    ///   another program's schema, ...).
    public init(path: String, now: @escaping @Sendable () -> Int64 = Store.systemMilliseconds,
                busyTimeoutMilliseconds: Int32 = 5_000, readOnly: Bool = false) throws {
        self.path = path
        self.now = now
        var connection = try Database(path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds, readOnly: readOnly)
        if readOnly, try Migrations.needsUpgrade(connection) {
            // An older bracelet database is upgraded even for reading: the migrations keep every row.
            connection = try Database(path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
            try Migrations.migrate(connection)
        } else if readOnly {
            try Migrations.checkReadable(connection)
        } else {
            try Migrations.migrate(connection)
        }
        db = connection
    }

    /// Opens the database without migrating past `schemaVersion` (for migration tests).
    init(path: String, migratingTo schemaVersion: Int) throws {
        self.path = path
        now = Store.systemMilliseconds
        db = try Database(path: path)
        try Migrations.migrate(db, upTo: schemaVersion)
    }

    /// The wall clock in Unix milliseconds.
    @Sendable public static func systemMilliseconds() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
    }

    /// The schema version this build writes.
    public static var currentSchemaVersion: Int { Migrations.latestVersion }

    /// The schema version of the open file (`PRAGMA user_version`).
    public func schemaVersion() throws -> Int {
        try locked { try $0.userVersion() }
    }

    /// Runs `body` with exclusive use of the connection.
    func locked<T>(_ body: (Database) throws -> T) throws -> T {
        lock.lock()
        depth += 1
        defer {
            depth -= 1
            if depth == 0 { db.finishStatements() }
            lock.unlock()
        }
        return try body(db)
    }

    /// Runs `body` in one write transaction with exclusive use of the connection.
    func write<T>(_ body: (Database) throws -> T) throws -> T {
        try locked { db in try db.transaction { try body(db) } }
    }

    /// Runs `body` in ONE write transaction: every store call it makes on this thread joins it, so
    /// either all of their changes are committed (with one fsync) or, when `body` throws, none.
    /// Other threads' calls wait until it ends.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try write { _ in try body() }
    }

    /// Runs `body`, with every transaction it makes, as one load into a database that holds no
    /// samples yet (a new database being filled by `ingest` or a first `listen`): its transactions
    /// go through a rollback journal instead of the write-ahead log, and the log is back on when it
    /// ends. A database with samples, or one another connection has open (the mode then cannot
    /// change), is written as always.
    ///
    /// Why: a load writes mostly new pages. Through the log each is written twice (into the log at
    /// the commit, into the database at the checkpoint that follows) and read back once; SQLite's
    /// rollback journal keeps only the old content of pages that existed before the transaction,
    /// so new pages are written once. Just as atomic and durable: a crash leaves the database as it
    /// was at the last commit. Should switching back fail, the next open switches. Between the
    /// load's transactions another process can read the database; one that opens it meanwhile
    /// cannot turn the log on and fails to open until the load ends.
    ///
    /// Rows the load reads back are not row-checked while no other connection has written since
    /// the load began (`PRAGMA data_version`): the load wrote every one of them, and a page changed
    /// on disk since is still caught by its checksum.
    public func loading<T>(_ body: () throws -> T) throws -> T {
        let began = try locked { db -> Bool in
            // Another connection that has the file open keeps it in WAL mode: then the switch
            // fails at once (no waiting for it) and the load goes through the log.
            guard !loadOpen, path != ":memory:", try Self.withoutSamples(db),
                  db.withoutWaiting({ try? db.scalarText("PRAGMA journal_mode=DELETE") })?.lowercased() == "delete"
            else { return false }
            // Asked again after the switch: another process may have written in between.
            if try Self.withoutSamples(db) { loadStart = try db.scalarInt("PRAGMA data_version") }
            loadOpen = true
            return true
        }
        guard began else { return try body() }
        // The connection's lock is not held meanwhile: the load's own threads (a live session
        // commits on its writer thread) use the store as always.
        defer {
            _ = try? locked { db in
                loadStart = nil
                loadOpen = false
                _ = try db.scalarText("PRAGMA journal_mode=WAL")
            }
        }
        return try body()
    }

    /// Whether every sample row was written by this connection's ``loading(_:)``, which began in a
    /// database without samples, with no other connection's commit since.
    func loadedEverySample(_ db: Database) throws -> Bool {
        guard let loadStart else { return false }
        return try db.scalarInt("PRAGMA data_version") == loadStart
    }

    static func withoutSamples(_ db: Database) throws -> Bool {
        try db.scalarInt("""
            SELECT NOT EXISTS (SELECT 1 FROM slots) AND NOT EXISTS (SELECT 1 FROM beats)
                AND NOT EXISTS (SELECT 1 FROM beat_chunks)
            """) == 1
    }

    /// Runs `body` in one transaction (``transaction(_:)``) that is a ``loading(_:)`` of its own:
    /// into a database without samples, through a rollback journal, its rows not row-checked.
    public func loadingTransaction<T>(_ body: () throws -> T) throws -> T {
        try loading { try transaction(body) }
    }

    /// The id of device `serial`, creating its row when new and updating `last_seen_at` (and the model
    /// when given). Call inside a transaction.
    func upsertDevice(_ db: Database, serial: String, model: DeviceModel?) throws -> Int64 {
        guard !serial.isEmpty else {
            throw StoreError.invalidInput("device serial is empty; pass the bracelet's serial number.")
        }
        let seconds = now() / 1000
        let statement = try db.prepare("""
            INSERT INTO devices (serial, model, first_seen_at, last_seen_at) VALUES (?1, ?2, ?3, ?3)
            ON CONFLICT(serial) DO UPDATE SET last_seen_at = excluded.last_seen_at,
                model = coalesce(excluded.model, devices.model)
            RETURNING id
            """)
        statement.bind(serial, at: 1)
        statement.bind(model?.description, at: 2)
        statement.bind(seconds, at: 3)
        guard try statement.step(), let id = statement.int64(at: 0) else {
            throw StoreError.sqlite(code: 0, message: "device upsert returned no id", sql: statement.sql)
        }
        return id
    }

    /// The id of device `serial`, or `nil` when the store has never seen it.
    func deviceID(_ db: Database, serial: String) throws -> Int64? {
        let statement = try db.prepare("SELECT id FROM devices WHERE serial = ?1")
        statement.bind(serial, at: 1)
        return try statement.step() ? statement.int64(at: 0) : nil
    }

    /// Every device the store has seen, ordered by serial.
    public func devices() throws -> [DeviceRecord] {
        try locked { db in
            let statement = try db.prepare("SELECT serial, model, first_seen_at, last_seen_at, sensor FROM devices ORDER BY serial")
            var result: [DeviceRecord] = []
            while try statement.step() {
                result.append(DeviceRecord(
                    serial: statement.text(at: 0) ?? "",
                    model: statement.text(at: 1).flatMap { DeviceModel(name: $0) },
                    firstSeenAt: statement.int64(at: 2) ?? 0,
                    lastSeenAt: statement.int64(at: 3) ?? 0,
                    sensor: statement.text(at: 4)
                ))
            }
            return result
        }
    }

    /// Records that `device` is a standard health sensor named `name` (its Device Information maker
    /// and model, or its profiles): its rows are kept like a bracelet's, under the same key.
    public func recordSensor(device: String, name: String) throws {
        try write { db in
            _ = try upsertDevice(db, serial: device, model: nil)
            let statement = try db.prepare("UPDATE devices SET sensor = ?2 WHERE serial = ?1")
            statement.bind(device, at: 1)
            statement.bind(name, at: 2)
            try statement.run()
        }
    }
}

/// A bracelet the store has received data from.
public struct DeviceRecord: Sendable, Equatable {
    /// The bracelet's serial number.
    public var serial: String
    /// Its model, when known.
    public var model: DeviceModel?
    /// When the store first received data from it, Unix seconds (wall clock of the ingesting machine).
    public var firstSeenAt: Int64
    /// When the store last received data from it, Unix seconds.
    public var lastSeenAt: Int64
    /// For a standard health sensor (a strap, an oximeter, a thermometer), its maker and model;
    /// `nil` for a bracelet.
    public var sensor: String? = nil
}
