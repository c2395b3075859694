import CPageChecksum
import CSQLite

/// Page checksums: every page of a bracelet database file (schema 10 on) keeps an 8-byte checksum in
/// reserved bytes at its end, written whenever the page is written to the database file and verified
/// whenever SQLite reads the page from it (the `bracelet-checksum` VFS in `Sources/CPageChecksum`).
///
/// A changed byte anywhere in a page of the file makes the read of that page fail with
/// `SQLITE_IOERR_DATA`, which ``Database`` reports as ``StoreError/corrupt(path:detail:)`` naming
/// the page. So a command never uses a damaged row, and `PRAGMA quick_check`, which reads every page
/// in use, finds damage anywhere, also in rows no command of this run reads.
///
/// The write-ahead log is left as SQLite writes it: its frames carry SQLite's own checksums, which
/// WAL recovery verifies, and a page changed on its way into the WAL would no longer match its frame
/// checksum (recovery would then drop every transaction after it). A page gets its checksum when a
/// checkpoint copies it into the database file. The file stays an ordinary SQLite database: other
/// programs read it (without verifying); a page they write no longer matches its checksum and reads
/// as damaged here.
enum PageChecksums {
    /// The VFS every connection opens its file with; registering it once per process.
    static let vfsName: String? = {
        bracelet_checksum_vfs_register() == SQLITE_OK ? BRACELET_CHECKSUM_VFS : nil
    }()

    /// Reserved bytes per page the checksum needs.
    static let reserve = Int32(BRACELET_CHECKSUM_RESERVE)

    /// The reserved bytes per page of the open file.
    static func reservedBytes(_ db: Database) -> Int32 {
        var value: Int32 = -1
        sqlite3_file_control(db.handle, "main", SQLITE_FCNTL_RESERVE_BYTES, &value)
        return value
    }

    /// Whether the open file carries page checksums.
    static func present(_ db: Database) -> Bool {
        reservedBytes(db) == reserve
    }

    /// Adds the checksums to a file without them: the reserved bytes, then a `VACUUM` that rewrites
    /// every page (keeping every row) into the WAL, and a checkpoint that copies them into the file,
    /// each with its checksum. Runs outside a transaction; interrupted before the VACUUM commits, the
    /// file stays as it was and the next open converts it again.
    ///
    /// A file SQLite's structure check finds damaged is refused first, as corrupt: the `VACUUM` would
    /// fail on it with a misleading error (a cell pointing past the end of the file makes it report
    /// a full disk), and where it got through, the rewrite would seal damaged pages with valid checksums.
    static func convert(_ db: Database) throws {
        guard db.path != ":memory:", !present(db) else { return }
        let damage = try structureProblems(db)
        guard damage.isEmpty else {
            let shown = damage.prefix(3).joined(separator: "; ") + (damage.count > 3 ? "; and \(damage.count - 3) more" : "")
            throw StoreError.corrupt(path: db.path, detail: "SQLite's structure check, run before adding page checksums, found: \(shown)")
        }
        requestReservedBytes(db, reserve)
        do {
            try db.execute("VACUUM")
        } catch {
            requestReservedBytes(db, 0)
            throw error
        }
        // So that the database file itself, not only the WAL, says it carries checksums.
        _ = try? db.scalarInt("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    /// The problems `PRAGMA quick_check` reports, one per line; empty when it finds none.
    static func structureProblems(_ db: Database) throws -> [String] {
        let statement = try db.prepare("PRAGMA quick_check(100)")
        var problems: [String] = []
        while try statement.step() { problems += structureProblems(inCheckRow: statement.text(at: 0) ?? "") }
        return problems
    }

    /// The problems in one row of `quick_check` or `integrity_check`: a row may hold several lines,
    /// the first naming the schema (`*** in database main ***`); every other line but `ok` is one problem.
    static func structureProblems(inCheckRow text: String) -> [String] {
        text.split(separator: "\n").map(String.init).filter { $0 != "ok" && !$0.hasPrefix("*** in database") }
    }

    /// Asks for `count` reserved bytes per page: they take effect when the next `VACUUM` rewrites the
    /// file (SQLite only ever raises the reserve of a file).
    static func requestReservedBytes(_ db: Database, _ count: Int32) {
        var value = count
        sqlite3_file_control(db.handle, "main", SQLITE_FCNTL_RESERVE_BYTES, &value)
    }

    /// What a failed checksum on this thread damaged, for ``StoreError/corrupt(path:detail:)``.
    static func lastFailure() -> String {
        let page = bracelet_checksum_last_failure()
        if page == 0 { return "a page does not match its checksum: it changed on disk after bracelet wrote it" }
        return "page \(page) does not match its checksum: it changed on disk after bracelet wrote it"
    }

    /// Whether a page failed its checksum on this thread since ``clearFailure()``.
    static var failed: Bool {
        bracelet_checksum_last_failure() != 0
    }

    /// Forgets the last failed page of this thread, before a check that reports the next one.
    static func clearFailure() {
        bracelet_checksum_clear_failure()
    }

    /// The damaged pages of the database file at `path` (not its WAL), read directly; at most
    /// `limit` page numbers, and how many there are in all. `nil` when the file has no checksums.
    static func scan(path: String, limit: Int = 20) throws -> (pages: [Int64], count: Int64, total: Int64)? {
        var pages = [Int64](repeating: 0, count: limit)
        var total: Int64 = 0
        let count = bracelet_checksum_scan(path, &pages, Int64(limit), &total)
        if count == -2 { return nil }
        if count < 0 { throw StoreError.cannotOpen(path: path, reason: "cannot read the file to verify its page checksums") }
        return (Array(pages.prefix(Int(min(count, Int64(limit))))), count, total)
    }

    /// The checksum a page of these bytes carries in its last 8 bytes (little-endian).
    static func checksum(of page: [UInt8]) -> UInt64 {
        bracelet_page_checksum(page, Int32(page.count))
    }
}
