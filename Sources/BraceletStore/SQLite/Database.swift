import BraceletProtocol
import CSQLite
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One connection to an SQLite database file.
///
/// A thin, honest layer over the C API: it opens the file (creating it with mode 0600 first), sets the
/// busy timeout, WAL and full fsync, runs SQL, prepares statements and wraps work in
/// `BEGIN IMMEDIATE` transactions. Every SQLite failure becomes a ``StoreError`` that says what to do.
///
/// A connection is not thread-safe; ``Store`` serialises all access to its connection.
public final class Database {
    /// The file path this connection was opened on.
    public let path: String
    /// Whether the connection was opened for reading only.
    public let readOnly: Bool
    let handle: OpaquePointer
    /// Compiled statements by SQL text: each is prepared once per connection and reused.
    private var statements: [String: Statement] = [:]
    /// How long a statement waits for another connection's lock (``init(path:busyTimeoutMilliseconds:readOnly:)``).
    let busyTimeoutMilliseconds: Int32
    /// How many ``transaction(_:)`` calls are open (the outer one is a transaction, inner ones savepoints).
    private var transactionDepth = 0
    /// How many changed pages a write transaction keeps in memory before SQLite spills them to the
    /// WAL (`PRAGMA cache_spill`): 16,384 pages of 4 KiB, 64 MiB.
    static let spillThresholdPages = 16_384

    /// Opens (creating when missing) the database at `path`.
    ///
    /// - Parameters:
    ///   - path: file path. The file is created with mode 0600 before SQLite touches it, so summaries
    ///     of someone's health are never world-readable. SQLite gives its -wal and -shm files the same mode.
    ///   - busyTimeoutMilliseconds: how long a statement waits for another process's write lock
    ///     before it fails with ``StoreError/locked(path:detail:)``.
    ///   - readOnly: open without creating or changing the file (for commands that only read).
    public init(path: String, busyTimeoutMilliseconds: Int32 = 5_000, readOnly: Bool = false) throws {
        self.path = path
        self.readOnly = readOnly
        self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
        if path != ":memory:" {
            do { try InputFile.checkRegularOrMissing(path: path, what: "database") } catch {
                if case .permissionDenied = error { throw StoreError.permissionDenied(path: path) }
                throw StoreError.invalidInput(error.description)
            }
            if !readOnly { try Database.createFileIfMissing(path) }
        }
        var db: OpaquePointer?
        let flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE) | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, PageChecksums.vfsName)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            let code = db.map { sqlite3_system_errno($0) } ?? 0
            if let db { sqlite3_close_v2(db) }
            if code == EACCES || code == EPERM { throw StoreError.permissionDenied(path: path) }
            throw StoreError.cannotOpen(path: path, reason: message)
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
        RowCheck.register(on: db)
        BeatChunkFunction.register(on: db)
        DocumentFunctions.register(on: db)
        sqlite3_busy_timeout(db, busyTimeoutMilliseconds)
        do {
            // Reading the schema is the first access to the file: a non-database fails here.
            _ = try scalarInt("PRAGMA schema_version")
            if path != ":memory:" && !readOnly {
                let mode = try scalarText("PRAGMA journal_mode=WAL")
                if mode?.lowercased() != "wal" {
                    throw StoreError.cannotOpen(path: path, reason: "could not switch to WAL journal mode (got \(mode ?? "nothing"))")
                }
            }
            // FULL: a commit survives power loss, which the erase-after-commit rule relies on.
            try execute("PRAGMA synchronous=FULL")
            try execute("PRAGMA foreign_keys=ON")
            // A transaction's changed pages stay in memory up to 64 MiB (clean pages are still
            // recycled at the default 2 MB cache). With the default, a large transaction spilled
            // its pages into the WAL before the commit, read them back to change them again and,
            // inside a savepoint (every store call in a transaction is one), first copied each
            // spilled page into a statement journal in a temporary file: 44 MB of it per 30-day
            // ingest, written for nothing when the transaction commits.
            if !readOnly { try execute("PRAGMA cache_spill=\(Database.spillThresholdPages)") }
        } catch {
            sqlite3_close_v2(db)
            throw error
        }
        if leavesNoLog { LogCheckpoint.opened(path) }
    }

    deinit {
        statements.removeAll()  // finalizes them before the connection closes
        if leavesNoLog { LogCheckpoint.close(handle, path: path) } else { sqlite3_close_v2(handle) }
    }

    /// Whether closing this connection copies the WAL into the file and empties it (see
    /// ``LogCheckpoint``): a connection that may write to a database file.
    private var leavesNoLog: Bool { !readOnly && path != ":memory:" }

    /// Creates an empty file with mode 0600 when none exists, so SQLite never creates it with the
    /// process umask. An existing file is never opened here: closing any descriptor of a file drops
    /// every POSIX lock this process holds on it, including the ones SQLite keeps for the other
    /// connections of this process, and another process could then checkpoint and delete the WAL
    /// under them (they would go on reading the old pages).
    static func createFileIfMissing(_ path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if fd < 0 {
            let code = errno
            if code == EEXIST { return }
            if code == EACCES || code == EPERM { throw StoreError.permissionDenied(path: path) }
            throw StoreError.cannotOpen(path: path, reason: String(cString: strerror(code)))
        }
        close(fd)
    }

    /// Runs one or more SQL statements that return no rows.
    public func execute(_ sql: String) throws {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        if rc != SQLITE_OK {
            let message = errorMessage.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(errorMessage)
            throw error(code: rc, message: message, sql: sql)
        }
    }

    /// The compiled statement for `sql`, reset and with no bindings: compiled on first use, then
    /// taken from this connection's cache. Use one statement at a time per SQL text (a second
    /// `prepare` of the same text resets the first).
    public func prepare(_ sql: String) throws -> Statement {
        if let cached = statements[sql] {
            cached.reset()
            return cached
        }
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard rc == SQLITE_OK, let statement else {
            throw error(code: rc, sql: sql)
        }
        let compiled = Statement(handle: statement, database: self, sql: sql)
        statements[sql] = compiled
        return compiled
    }

    /// Resets every statement still in the middle of its rows, so that no read transaction stays
    /// open between calls (it would pin the WAL and hold back checkpoints).
    public func finishStatements() {
        for statement in statements.values where sqlite3_stmt_busy(statement.handle) != 0 {
            sqlite3_reset(statement.handle)
        }
    }

    /// Runs `body` inside `BEGIN IMMEDIATE ... COMMIT`; any thrown error rolls everything back.
    ///
    /// IMMEDIATE takes the write lock at the start, so two writers never deadlock halfway through.
    /// Called inside another transaction, `body` runs in a savepoint of it: its error undoes only its
    /// own changes, and nothing is durable before the outer transaction commits.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        transactionDepth += 1
        defer { transactionDepth -= 1 }
        if transactionDepth > 1 {
            let name = "nested\(transactionDepth)"
            try execute("SAVEPOINT \(name)")
            do {
                let result = try body()
                finishStatements()
                try execute("RELEASE \(name)")
                return result
            } catch {
                if sqlite3_get_autocommit(handle) == 0 {
                    sqlite3_exec(handle, "ROLLBACK TO \(name); RELEASE \(name)", nil, nil, nil)
                }
                throw error
            }
        }
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            // A statement whose rows were not all read (INSERT ... RETURNING, a lookup of one row)
            // would make COMMIT fail with "SQL statements in progress".
            finishStatements()
            try execute("COMMIT")
            return result
        } catch {
            // The transaction may already be rolled back by SQLite (e.g. SQLITE_FULL); ignore that.
            if sqlite3_get_autocommit(handle) == 0 {
                sqlite3_exec(handle, "ROLLBACK", nil, nil, nil)
            }
            throw error
        }
    }

    /// Runs `body` with statements failing at once, instead of waiting, when another connection
    /// holds a lock they need: for what is only worth doing when nobody else has the file open.
    func withoutWaiting<T>(_ body: () throws -> T) rethrows -> T {
        sqlite3_busy_timeout(handle, 0)
        defer { sqlite3_busy_timeout(handle, busyTimeoutMilliseconds) }
        return try body()
    }

    /// Copies the whole WAL into the database file and empties it, waiting for other connections'
    /// readers and writers as ``LogCheckpoint/truncate(_:)`` does (then this connection's own busy
    /// timeout again); whether it completed. `PRAGMA wal_checkpoint` answers SQLITE_OK even when
    /// a reader kept it from copying everything (the busy flag is in its first column), so its
    /// result was easy to ignore.
    func checkpointCompletely() -> Bool {
        defer { sqlite3_busy_timeout(handle, busyTimeoutMilliseconds) }
        return LogCheckpoint.truncate(handle)
    }

    /// The first column of the first row of `sql` as an integer (`nil` when no row or NULL).
    public func scalarInt(_ sql: String) throws -> Int64? {
        let statement = try prepare(sql)
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return statement.int64(at: 0)
    }

    /// The first column of the first row of `sql` as text (`nil` when no row or NULL).
    public func scalarText(_ sql: String) throws -> String? {
        let statement = try prepare(sql)
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return statement.text(at: 0)
    }

    /// `PRAGMA user_version`: the schema version the migrations have reached.
    public func userVersion() throws -> Int {
        Int(try scalarInt("PRAGMA user_version") ?? 0)
    }

    /// Rows changed by the most recent INSERT, UPDATE or DELETE on this connection.
    public var changes: Int {
        Int(sqlite3_changes(handle))
    }

    /// The rowid of the most recent successful INSERT on this connection.
    public var lastInsertRowID: Int64 {
        sqlite3_last_insert_rowid(handle)
    }

    /// Turns an SQLite result code into a ``StoreError`` that names the file and the remedy.
    func error(code: Int32, message: String? = nil, sql: String?) -> StoreError {
        let message = message ?? String(cString: sqlite3_errmsg(handle))
        if code == SQLITE_IOERR | (32 << 8) {  // SQLITE_IOERR_DATA
            let failure = PageChecksums.lastFailure(path: path)
            let detail = "\(failure.text); run `bracelet db check --db \(path)`"
            return failure.outside ? .writtenOutside(path: path, detail: detail) : .corrupt(path: path, detail: detail)
        }
        switch code & 0xFF {
        case SQLITE_BUSY, SQLITE_LOCKED: return .locked(path: path, detail: message)
        case SQLITE_NOTADB: return .notADatabase(path: path)
        case SQLITE_CORRUPT: return .corrupt(path: path, detail: message)
        case SQLITE_FULL: return .diskFull(path: path)
        case SQLITE_READONLY: return .readOnly(path: path)
        case SQLITE_CANTOPEN: return .cannotOpen(path: path, reason: message)
        default: return .sqlite(code: code, message: message, sql: sql)
        }
    }
}
