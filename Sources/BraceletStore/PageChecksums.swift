import BraceletDecoder
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
/// programs read it (without verifying) and may write it. A page another SQLite program copies or
/// writes into the file carries a marker instead of a failing checksum (see ``UnsealedPages``): it
/// reads as unsealed, not as damage, and the store verifies it before it seals it again
/// (``Store/sealOutsideWrites()``).
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
        // So that the database file itself, not only the WAL, says it carries checksums. Kept from
        // finishing (another process reading), the rest is copied by this connection's closing
        // checkpoint, and until then the pages are read from the WAL: nothing is lost either way.
        _ = db.checkpointCompletely()
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

    /// What a failed checksum on this thread damaged, for ``StoreError/corrupt(path:detail:)``, and
    /// whether another program wrote to the file at `path` since bracelet did (the change is then
    /// named a write from outside, ``StoreError/writtenOutside(path:detail:)``).
    static func lastFailure(path: String? = nil) -> (text: String, outside: Bool) {
        let page = bracelet_checksum_last_failure()
        let which = page == 0 ? "a page does not match its checksum" : "page \(page) does not match its checksum"
        if let path, let written = writtenSinceBracelet(path: path) { return ("\(which): \(written)", true) }
        return ("\(which): it changed on disk after bracelet wrote it", false)
    }

    /// When another program wrote to the file at `path` after bracelet's last write to it, says so
    /// with both times; `nil` when the file's modification time is still that of bracelet's last
    /// write, or bracelet's record of it is missing (a copy without extended attributes, a file
    /// system without them).
    static func writtenSinceBracelet(path: String) -> String? {
        var file: Int64 = 0, bracelet: Int64 = 0
        guard bracelet_written_since(path, &file, &bracelet) == 1 else { return nil }
        return "another program wrote to the file at \(UTCTime.iso8601(unixSeconds: file)), after bracelet's last write at \(UTCTime.iso8601(unixSeconds: bracelet)) (for example sqlite3 without -readonly while no bracelet process had the file open), and bracelet cannot tell such a change from damage"
    }

    /// Whether a page failed its checksum on this thread since ``clearFailure()``.
    static var failed: Bool {
        bracelet_checksum_last_failure() != 0
    }

    /// Forgets the last failed page of this thread, before a check that reports the next one.
    static func clearFailure() {
        bracelet_checksum_clear_failure()
    }

    /// What a scan of the database file found (``scan(path:limit:)``).
    struct Scan {
        /// The first damaged pages (1-based).
        var pages: [Int64]
        /// How many pages are damaged.
        var count: Int64
        /// The file's page count.
        var total: Int64
        /// Its unsealed pages.
        var unsealed: UnsealedPages
        /// The first pages of zeros only (free, or in use and lost: ``zeroedInUse(path:pages:)``).
        var zeroed: [Int64]
        /// How many pages are zeros only.
        var zeroedCount: Int64
    }

    /// The damaged pages of the database file at `path` (not its WAL), read directly; at most
    /// `limit` page numbers, how many there are in all, the file's page count, its unsealed pages and
    /// its pages of zeros (the first 4,096). `nil` when the file has no checksums.
    static func scan(path: String, limit: Int = 20) throws -> Scan? {
        var pages = [Int64](repeating: 0, count: limit)
        var zeroed = [Int64](repeating: 0, count: 4_096)
        var total: Int64 = 0, zeroedCount: Int64 = 0
        var unsealed = BraceletUnsealed()
        let count = bracelet_checksum_scan(path, &pages, Int64(limit), &total, &unsealed, &zeroed, Int64(zeroed.count), &zeroedCount)
        if count == -2 { return nil }
        if count < 0 { throw StoreError.cannotOpen(path: path, reason: "cannot read the file to verify its page checksums") }
        return Scan(pages: Array(pages.prefix(Int(min(count, Int64(limit))))), count: count, total: total, unsealed: UnsealedPages(unsealed),
                    zeroed: Array(zeroed.prefix(Int(min(zeroedCount, Int64(zeroed.count))))), zeroedCount: zeroedCount)
    }

    /// The unsealed pages this connection read from its database file or wrote into it since the
    /// last call (each is then forgotten).
    static func takeUnsealed(_ db: Database) -> UnsealedPages {
        var record = BraceletUnsealed()
        sqlite3_file_control(db.handle, "main", BRACELET_FCNTL_UNSEALED, &record)
        return UnsealedPages(record)
    }

    /// The checksum a page of these bytes carries in its last 8 bytes (little-endian).
    static func checksum(of page: [UInt8]) -> UInt64 {
        bracelet_page_checksum(page, Int32(page.count))
    }
}

/// Pages of the database file without a valid checksum whose reserved bytes say that an SQLite
/// program other than bracelet's put them there, not damage on disk:
/// - copied: a page image bracelet's SQLite made (read through the checksum VFS, or new) that
///   another program's checkpoint copied from the WAL into the file, for example the sqlite3 shell
///   closing last after bracelet was stopped without closing the file;
/// - written: a page another program read from the file and changed (its write went through the
///   WAL while bracelet had the file open, and bracelet's checkpoint copied it), or a page of
///   either kind that bracelet changed before it was verified.
struct UnsealedPages: Sendable, Equatable {
    /// How many pages are unsealed (at least; a connection's record counts a page read twice once
    /// only while it lists it).
    var count: Int64 = 0
    /// The first of them (1-based page numbers), in the order found.
    var listed: [Int64] = []
    /// Those of `listed` that were written from outside.
    var written: Set<Int64> = []

    init() {}

    init(_ record: BraceletUnsealed) {
        count = record.count
        var record = record
        let listed = Int(record.listed)
        withUnsafeBytes(of: &record.pages) { raw in
            self.listed = Array(raw.bindMemory(to: Int64.self).prefix(listed))
        }
        withUnsafeBytes(of: &record.outside) { raw in
            for (index, flag) in raw.prefix(listed).enumerated() where flag != 0 { written.insert(self.listed[index]) }
        }
    }

    /// Whether there are none.
    var isEmpty: Bool { count == 0 }
}
