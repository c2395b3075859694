import CSQLite
import Foundation

/// `bracelet db check`'s page scan and `bracelet db backup`'s copy, both keeping to the page
/// checksums (``PageChecksums``).
extension Store {
    /// Pages of the database file whose checksum does not match, read straight from the file (so
    /// every damaged page is listed, not only the first one a query meets), each with the table or
    /// index it belongs to when SQLite can still tell. Pages in the WAL carry no checksum of this
    /// kind (SQLite's frame checksums cover them when the WAL is recovered after a crash); they get
    /// theirs when a checkpoint copies them into the file. Pages another SQLite program put into
    /// the file carry a marker instead and are not damage (``outsideWrites()``).
    public func pageFindings() throws -> [IntegrityFinding] {
        try Self.pageFindings(path: path)
    }

    /// ``pageFindings()`` of the file at `path`, for a file that cannot be opened as a store (a
    /// damaged first page stops the open itself).
    public static func pageFindings(path: String) throws -> [IntegrityFinding] {
        guard path != ":memory:" else { return [] }
        guard let first = try PageChecksums.scan(path: path) else {
            return [IntegrityFinding(area: "pages", problem: "the file's header does not say its pages carry checksums (the first page was damaged or another program rewrote the file)")]
        }
        guard first.count > 0 || first.zeroedCount > 0 else { return [] }
        // The scan reads the file outside SQLite's locks, so a checkpoint of another process (sync
        // --follow) may be rewriting a page while it is read: only a page that fails twice is damage.
        usleep(200_000)
        guard let again = try PageChecksums.scan(path: path) else { return [] }
        return [damagedFinding(path: path, first: first, again: again), zeroedFinding(path: path, first: first, again: again)].compactMap { $0 }
    }

    /// The pages that failed their checksum in both scans.
    private static func damagedFinding(path: String, first: PageChecksums.Scan, again: PageChecksums.Scan) -> IntegrityFinding? {
        let pages = again.pages.filter(first.pages.contains)
        guard !pages.isEmpty else { return nil }
        let scan = (pages: pages, count: pages == again.pages ? again.count : Int64(pages.count), total: again.total)
        let owners = PageChecksums.owners(path: path, pages: scan.pages)
        let listed = scan.pages.map { page in owners[page].map { "\(page) (\($0))" } ?? "\(page)" }
        let more = scan.count > Int64(scan.pages.count) ? " and \(scan.count - Int64(scan.pages.count)) more" : ""
        if let written = PageChecksums.writtenSinceBracelet(path: path) {
            return IntegrityFinding(area: "outside", problem: "\(scan.count) of \(scan.total) pages do not match their checksum: page \(listed.joined(separator: ", "))\(more); \(written)")
        }
        return IntegrityFinding(area: "pages", problem: "\(scan.count) of \(scan.total) pages do not match their checksum (changed on disk since bracelet wrote them): page \(listed.joined(separator: ", "))\(more)")
    }

    /// The pages of zeros only, in both scans, that a table or index uses: a page in use that lost
    /// its content. A page of zeros passes its read (a free page another program copied looks the
    /// same), so without this an overflow page of zeros was read as a value of zeros, and sealed
    /// again with a valid checksum by the next command that writes.
    private static func zeroedFinding(path: String, first: PageChecksums.Scan, again: PageChecksums.Scan) -> IntegrityFinding? {
        let candidates = again.zeroed.filter(first.zeroed.contains)
        guard !candidates.isEmpty else { return nil }
        let owners = PageChecksums.zeroedInUse(path: path, pages: candidates)
        guard !owners.isEmpty else { return nil }
        let listed = owners.keys.sorted().prefix(20).map { "\($0) (\(owners[$0] ?? ""))" }
        let more = owners.count > listed.count ? " and \(owners.count - listed.count) more" : ""
        return IntegrityFinding(area: "pages", problem: "\(owners.count) of \(again.total) pages in use hold only zeros (their content was lost on disk: "
            + "a zeroed block or a write that never reached it): page \(listed.joined(separator: ", "))\(more)")
    }

    /// Copies the database into a new file at `destination` with SQLite's online backup, in one read
    /// transaction: the copy is consistent while other processes (`sync --follow`, `ingest`) keep
    /// writing, and every page is copied with its checksum, verified as it is read. Refuses to
    /// replace an existing file; a failed copy is removed.
    public func backup(to destination: String) throws {
        guard !FileManager.default.fileExists(atPath: destination) else {
            throw StoreError.invalidInput("\(destination) exists; bracelet never replaces a file with a backup: name a new file")
        }
        do {
            let copy = try Database(path: destination)
            try locked { db in
                guard let backup = sqlite3_backup_init(copy.handle, "main", db.handle, "main") else {
                    throw copy.error(code: sqlite3_extended_errcode(copy.handle), sql: nil)
                }
                let step = sqlite3_backup_step(backup, -1)
                let finish = sqlite3_backup_finish(backup)
                // A failed step leaves its code on the source (a page that failed its checksum) or
                // on the copy (disk full), and finish returns the copy's.
                if step != SQLITE_DONE {
                    throw finish == SQLITE_OK ? db.error(code: step, sql: nil) : copy.error(code: finish, sql: nil)
                }
            }
        } catch {
            for suffix in ["", "-wal", "-shm"] { unlink(destination + suffix) }
            throw error
        }
        chmod(destination, 0o600)
    }
}

extension PageChecksums {
    /// Those of `pages` (pages of zeros only in the file) that a table or index uses, each with its
    /// owner. Only the file itself can say so: while the WAL holds frames, a page free in the file
    /// may be in use in the WAL (and still zeros in the file until the checkpoint), so then none is
    /// named; the WAL is checked before and after the look-up.
    static func zeroedInUse(path: String, pages: [Int64]) -> [Int64: String] {
        func walIsEmpty() -> Bool {
            var status = stat()
            return stat(path + "-wal", &status) != 0 || status.st_size == 0
        }
        guard walIsEmpty() else { return [:] }
        let owners = self.owners(path: path, pages: pages)
        return walIsEmpty() ? owners : [:]
    }

    /// The table or index each of `pages` belongs to, from SQLite's `dbstat` table read through a
    /// connection that does not verify checksums (so damaged pages can be placed); best effort:
    /// pages it cannot place are left out.
    static func owners(path: String, pages: [Int64]) -> [Int64: String] {
        var handle: OpaquePointer?
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READONLY, nil) == SQLITE_OK, let handle else {
            sqlite3_close_v2(handle)
            return [:]
        }
        defer { sqlite3_close_v2(handle) }
        var statement: OpaquePointer?
        let list = pages.map(String.init).joined(separator: ",")
        guard sqlite3_prepare_v2(handle, "SELECT pageno, name FROM dbstat WHERE pageno IN (\(list))", -1, &statement, nil) == SQLITE_OK else { return [:] }
        defer { sqlite3_finalize(statement) }
        var owners: [Int64: String] = [:]
        while sqlite3_step(statement) == SQLITE_ROW {
            if let name = sqlite3_column_text(statement, 1) { owners[sqlite3_column_int64(statement, 0)] = String(cString: name) }
        }
        return owners
    }
}
