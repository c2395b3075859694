import CSQLite
import Foundation

/// A prepared SQL statement with typed binds and typed column reads.
///
/// Parameters are numbered from 1 as in SQLite; columns from 0. `nil` binds SQL NULL and a NULL column
/// reads back as `nil`, never as 0.
///
/// Every bind's return code is checked: a bind that fails (out of memory, a parameter index the SQL
/// does not have, a value too big) is remembered and the next ``step()`` throws it instead of running
/// the statement with a silently missing (NULL) value. Statements belong to their ``Database``, which
/// caches them; they must not outlive it.
public final class Statement {
    let handle: OpaquePointer
    unowned let database: Database
    /// The SQL text, kept for error messages.
    public let sql: String
    /// The first bind that failed since the last reset: its parameter and return code.
    private var failedBind: (index: Int32, code: Int32)?

    init(handle: OpaquePointer, database: Database, sql: String) {
        self.handle = handle
        self.database = database
        self.sql = sql
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Binds an integer or NULL to parameter `index` (1-based).
    public func bind(_ value: Int64?, at index: Int32) {
        check(value.map { sqlite3_bind_int64(handle, index, $0) } ?? sqlite3_bind_null(handle, index), index)
    }

    /// Remembers the first failed bind; ``step()`` throws it.
    private func check(_ code: Int32, _ index: Int32) {
        if code != SQLITE_OK && failedBind == nil { failedBind = (index, code) }
    }

    /// Binds an integer or NULL to parameter `index` (1-based).
    public func bind(_ value: Int?, at index: Int32) {
        bind(value.map(Int64.init), at: index)
    }

    /// Binds a floating-point number or NULL to parameter `index` (1-based).
    public func bind(_ value: Double?, at index: Int32) {
        check(value.map { sqlite3_bind_double(handle, index, $0) } ?? sqlite3_bind_null(handle, index), index)
    }

    /// Binds UTF-8 text or NULL to parameter `index` (1-based).
    public func bind(_ value: String?, at index: Int32) {
        check(value.map { sqlite3_bind_text(handle, index, $0, -1, csqlite_transient()) } ?? sqlite3_bind_null(handle, index), index)
    }

    /// Binds UTF-8 bytes as text to parameter `index` (1-based), without making a `String` of them
    /// first (a day's summary is 0.6 MB). The caller guarantees the bytes are UTF-8 (the canonical
    /// JSON writer's output is); an empty array binds empty text, never NULL.
    public func bind(utf8 value: [UInt8], at index: Int32) {
        guard value.count <= Int(Int32.max) else {
            check(SQLITE_TOOBIG, index)
            return
        }
        check(value.withUnsafeBufferPointer { buffer in
            buffer.baseAddress.map { base in
                base.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                    sqlite3_bind_text(handle, index, $0, Int32(buffer.count), csqlite_transient())
                }
            } ?? sqlite3_bind_text(handle, index, "", 0, csqlite_transient())
        }, index)
    }

    /// Binds a blob or NULL to parameter `index` (1-based).
    public func bind(_ value: Data?, at index: Int32) {
        guard let value else {
            check(sqlite3_bind_null(handle, index), index)
            return
        }
        guard !value.isEmpty else {
            // A NULL pointer would bind SQL NULL; an empty blob is not a missing value.
            check(sqlite3_bind_zeroblob(handle, index, 0), index)
            return
        }
        guard value.count <= Int(Int32.max) else {
            check(SQLITE_TOOBIG, index)
            return
        }
        check(value.withUnsafeBytes { raw in
            sqlite3_bind_blob(handle, index, raw.baseAddress, Int32(raw.count), csqlite_transient())
        }, index)
    }

    /// Binds bytes as a blob to parameter `index` (1-based); an empty array binds an empty blob.
    public func bind(_ value: [UInt8], at index: Int32) {
        guard value.count <= Int(Int32.max) else {
            check(SQLITE_TOOBIG, index)
            return
        }
        check(value.withUnsafeBytes { raw in
            // A NULL pointer would bind SQL NULL; an empty blob is not a missing value.
            raw.isEmpty ? sqlite3_bind_zeroblob(handle, index, 0)
                : sqlite3_bind_blob(handle, index, raw.baseAddress, Int32(raw.count), csqlite_transient())
        }, index)
    }

    /// Advances to the next row: `true` when a row is available, `false` when the statement is done.
    public func step() throws -> Bool {
        if let failedBind {
            let message = "could not bind parameter \(failedBind.index): \(String(cString: sqlite3_errstr(failedBind.code)))"
            reset()
            throw database.error(code: failedBind.code, message: message, sql: sql)
        }
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = database.error(code: rc, sql: sql)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Runs the statement to completion, ignoring any rows, then resets it for reuse.
    public func run() throws {
        defer { reset() }
        while try step() {}
    }

    /// Runs a statement that returns no rows once and rewinds it, KEEPING its bindings: for a loop
    /// that binds the same parameters again before each run (and leaves the constant ones bound).
    /// A failed earlier bind is thrown, as by ``step()``.
    public func runKeepingBindings() throws {
        if failedBind != nil {
            _ = try step()  // throws the failed bind and resets
        }
        let rc = sqlite3_step(handle)
        guard rc == SQLITE_DONE || rc == SQLITE_ROW else {
            let error = database.error(code: rc, sql: sql)
            sqlite3_reset(handle)
            throw error
        }
        sqlite3_reset(handle)
    }

    /// Rewinds the statement and clears its bindings so it can run again.
    public func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        failedBind = nil
    }

    /// `true` when column `index` of the current row is NULL.
    public func isNull(at index: Int32) -> Bool {
        sqlite3_column_type(handle, index) == SQLITE_NULL
    }

    /// Column `index` as an integer, `nil` when NULL.
    public func int64(at index: Int32) -> Int64? {
        isNull(at: index) ? nil : sqlite3_column_int64(handle, index)
    }

    /// Column `index` as an `Int`, `nil` when NULL.
    public func int(at index: Int32) -> Int? {
        int64(at: index).map { Int($0) }
    }

    /// Column `index` as a `Double`, `nil` when NULL.
    public func double(at index: Int32) -> Double? {
        isNull(at: index) ? nil : sqlite3_column_double(handle, index)
    }

    /// Column `index` as text, `nil` when NULL.
    public func text(at index: Int32) -> String? {
        guard !isNull(at: index), let pointer = sqlite3_column_text(handle, index) else { return nil }
        return String(cString: pointer)
    }

    /// Calls `body` with the bytes of column `index` of the current row, without copying them (the
    /// buffer is valid only inside `body`); `nil` when the column is NULL.
    public func withBytes<T>(at index: Int32, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T? {
        guard !isNull(at: index) else { return nil }
        let pointer = sqlite3_column_blob(handle, index)
        let count = Int(sqlite3_column_bytes(handle, index))
        return try body(UnsafeRawBufferPointer(start: count > 0 ? pointer : nil, count: count > 0 ? count : 0))
    }

    /// Column `index` as bytes (from a blob or text column), `nil` when NULL.
    public func data(at index: Int32) -> Data? {
        guard !isNull(at: index) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, index))
        guard count > 0, let pointer = sqlite3_column_blob(handle, index) else { return Data() }
        return Data(bytes: pointer, count: count)
    }
}
