import CSQLite

/// Pages another SQLite program put into the database file (``UnsealedPages``): what they are, and
/// what bracelet did about them.
public struct OutsideWriteReport: Sendable, Equatable, CustomStringConvertible {
    /// How many pages of the file are unsealed.
    public var pages: Int64
    /// The first of them, each with the table or index it belongs to when SQLite can tell
    /// (`15 (delivery_log)`).
    public var listed: [String]
    /// Whether some were written by another program, not only copied from bracelet's WAL.
    public var written: Bool
    /// Whether SQLite's integrity check and bracelet's row checks and content hashes passed.
    public var verified: Bool
    /// Whether bracelet sealed them again (rewrote them with their checksums, copied into the file);
    /// a read-only open verifies them but leaves that to the next command that writes, and a
    /// checkpoint another reader kept from finishing leaves it to this connection's close.
    public var sealed: Bool

    /// Creates a report.
    public init(pages: Int64, listed: [String], written: Bool, verified: Bool, sealed: Bool) {
        self.pages = pages
        self.listed = listed
        self.written = written
        self.verified = verified
        self.sealed = sealed
    }

    /// Which pages, and who put them there.
    public var what: String {
        let more = pages > Int64(listed.count) ? " and \(pages - Int64(listed.count)) more" : ""
        let which = "page \(listed.joined(separator: ", "))\(more)"
        return written
            ? "another program wrote to the file: \(pages) pages were written outside bracelet (\(which)), for example by the sqlite3 shell without -readonly"
            : "\(pages) pages were copied into the file by another SQLite program (\(which)): the checkpoint it runs when it closes the file last copied bracelet's write-ahead log"
    }

    public var description: String {
        guard verified else { return what }
        let checks = "SQLite's integrity check and bracelet's row checks and content hashes pass"
        return "\(what); \(checks), so this is not damage; " + (sealed ? "bracelet sealed them again (each page has its checksum)" : "the next bracelet command that writes seals them again")
    }
}

/// Pages another SQLite program wrote: found by their markers (``PageChecksums``), verified, and
/// sealed again.
extension Store {
    /// The unsealed pages of the database file as it is on disk, not verified; `nil` when there are
    /// none (or the file has no checksums).
    public func outsideWrites() throws -> OutsideWriteReport? {
        guard path != ":memory:", let scan = try PageChecksums.scan(path: path), !scan.unsealed.isEmpty else { return nil }
        let owners = PageChecksums.owners(path: path, pages: scan.unsealed.listed)
        return OutsideWriteReport(pages: scan.unsealed.count,
                                  listed: scan.unsealed.listed.map { page in owners[page].map { "\(page) (\($0))" } ?? "\(page)" },
                                  written: !scan.unsealed.written.isEmpty, verified: false, sealed: false)
    }

    /// Verifies the pages another SQLite program put into the file and, on a connection that may
    /// write, seals them again; `nil` when there are none. Pages that also fail their checksum
    /// otherwise (damage) are left to ``pageFindings()``: nothing is sealed then.
    ///
    /// The check is SQLite's `integrity_check` (every page in use, every index against its table)
    /// and bracelet's row checks of slots and beats and content hashes of summaries and the outbox,
    /// over the whole file. Sealing is a `VACUUM` (every page rewritten, every row kept) and a
    /// checkpoint through the checksum VFS: the only way to make SQLite rewrite pages it did not
    /// change, so its cost follows the file's size. It happens once per outside write.
    ///
    /// - Throws: ``StoreError/writtenOutside(path:detail:)`` when a check fails (rows another
    ///   program changed are not used), ``StoreError/corrupt(path:detail:)`` when SQLite's check
    ///   finds damage.
    @discardableResult
    public func sealOutsideWrites() throws -> OutsideWriteReport? {
        guard var report = try outsideWrites(), try pageFindings().isEmpty else { return nil }
        if let damage = try structureFindings(full: true).first {
            throw StoreError.corrupt(path: path, detail: "\(damage.problem) (and \(report.what)); run `bracelet db check --db \(path)`")
        }
        if let changed = try (measurementFindings() + contentFindings()).first {
            throw StoreError.writtenOutside(path: path, detail: "\(report.what); rows no longer match what bracelet wrote: \(changed)")
        }
        report.verified = true
        guard try !locked({ $0.readOnly }) else { return report }
        report.sealed = try locked { db in
            try db.execute("VACUUM")
            // The VACUUM's pages get their checksums when a checkpoint copies them into the file.
            // One kept from finishing (another program reading) is not a seal: the report says the
            // pages stay unsealed, and this connection's closing checkpoint copies the rest.
            let copied = db.checkpointCompletely()
            _ = PageChecksums.takeUnsealed(db)
            return copied
        }
        return report
    }
}
