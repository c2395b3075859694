import BraceletProtocol

/// Everything that can go wrong while opening or using the bracelet database.
///
/// Each case says what was wrong and what to do about it. Cases that come straight from SQLite keep
/// the SQLite result code and message so a bug report carries the original facts.
public enum StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The database file could not be opened or created (missing folder, ...).
    case cannotOpen(path: String, reason: String)
    /// This user may not open the database file or reach its folder (EACCES, EPERM).
    case permissionDenied(path: String)
    /// Another process holds a write lock longer than the busy timeout.
    case locked(path: String, detail: String)
    /// The file exists but is not an SQLite database (SQLITE_NOTADB).
    case notADatabase(path: String)
    /// SQLite found damaged pages (SQLITE_CORRUPT), a page failed its checksum, or a row or stored summary no longer matches its check.
    case corrupt(path: String, detail: String)
    /// Another program wrote to the file, and rows bracelet checks no longer match what bracelet wrote.
    case writtenOutside(path: String, detail: String)
    /// The disk (or the file system quota) is full (SQLITE_FULL).
    case diskFull(path: String)
    /// The database or its folder is read-only (SQLITE_READONLY).
    case readOnly(path: String)
    /// The file was written by a newer build of bracelet whose schema this build does not know.
    case schemaNewerThanBuild(path: String, found: Int, supported: Int)
    /// The file is an SQLite database but not one bracelet made, or another program changed it.
    case foreignSchema(path: String, detail: String)
    /// The file has no bracelet schema yet (a command that only reads was given an empty database).
    case noBraceletData(path: String)
    /// Any other SQLite failure: result code, SQLite's message and the statement that failed.
    case sqlite(code: Int32, message: String, sql: String?)
    /// A caller passed a value the store refuses (bad local date, JSON that does not parse, ...).
    case invalidInput(String)
    /// A transfer chunk does not continue where the committed bytes end.
    case transferOutOfOrder(device: String, fileKind: String, expectedOffset: Int64, gotOffset: Int64)
    /// A chunk would run past the sealed file size announced when the transfer began.
    case transferOverrun(device: String, fileKind: String, sealedSize: Int64, endOffset: Int64)
    /// No transfer was begun for this device and file kind.
    case noSuchTransfer(device: String, fileKind: String)
    /// Erase was asked for before every byte of the file was committed.
    case eraseBeforeCommit(device: String, fileKind: String, committed: Int64, sealedSize: Int64)
    /// No outbox entry has this id.
    case noSuchOutboxEntry(id: Int64)

    /// What went wrong and what to do about it.
    public var description: String {
        switch self {
        case let .cannotOpen(path, reason):
            "cannot open database \(path): \(reason). Check that the folder exists and that you may write to it."
        case let .permissionDenied(path):
            "cannot open database \(path): permission denied; " + InputFile.permissionAdvice
        case let .locked(path, detail):
            "database \(path) is locked by another process (\(detail)). Wait for the other bracelet command to finish, or stop it, then retry."
        case let .notADatabase(path):
            "\(path) is not a bracelet database (SQLite says: file is not a database). Check the --db path; if the file was damaged, move it aside and re-ingest the captures into a new database."
        case let .corrupt(path, detail):
            "database \(path) is corrupt (\(detail)). Keep a copy, run `sqlite3 \(path) .recover` to salvage it, or re-ingest the captures into a new database."
        case let .writtenOutside(path, detail):
            "database \(path) was changed by another program (\(detail)). bracelet does not use rows it did not write. If the change was not meant, restore the latest backup (`bracelet db backup` makes one) or re-ingest the captures into a new database; read the file with `sqlite3 -readonly` so that nothing is written."
        case let .diskFull(path):
            "disk full while writing \(path): nothing of the failed step was committed. Free disk space and run the command again."
        case let .readOnly(path):
            "database \(path) is read-only. Give this user write permission on the file and its folder (SQLite writes a -wal and -shm file next to it)."
        case let .schemaNewerThanBuild(path, found, supported):
            "database \(path) has schema version \(found) but this build of bracelet knows versions up to \(supported). Use a newer bracelet build; this one will not touch the file."
        case let .foreignSchema(path, detail):
            "\(path) is not a database bracelet can use: \(detail). bracelet leaves it untouched. Check the --db path; if it is yours, restore it from a backup (`bracelet db backup`) or move it aside and re-ingest the captures into a new database."
        case let .noBraceletData(path):
            "\(path) holds no bracelet data yet (no schema). Store some first: a capture with `bracelet ingest CAPTURE --db \(path)`, "
                + "a bracelet synced once with `bracelet listen --device ADDRESS --db \(path)`, or bracelets enrolled with "
                + "`bracelet gateway enroll --db \(path) ...` and synced by `bracelet gateway run --db \(path)`."
        case let .sqlite(code, message, sql):
            "SQLite error \(code): \(message)" + (sql.map { " in statement: \($0)" } ?? "") + ". This is likely a bug in bracelet; please report it with this message."
        case let .invalidInput(message):
            message
        case let .transferOutOfOrder(device, fileKind, expected, got):
            "transfer of \(fileKind) from \(device): chunk starts at byte \(got) but \(expected) bytes are committed. Resume the download from byte \(expected)."
        case let .transferOverrun(device, fileKind, size, end):
            "transfer of \(fileKind) from \(device): chunk ends at byte \(end), past the sealed size \(size). Ask the bracelet for the file size again and begin a new transfer."
        case let .noSuchTransfer(device, fileKind):
            "no transfer of \(fileKind) from \(device) was begun. Call beginTransfer with the sealed file size first."
        case let .eraseBeforeCommit(device, fileKind, committed, size):
            "refusing to erase \(fileKind) on \(device): only \(committed) of \(size) bytes are committed. Finish the download first; erasing now would lose data."
        case let .noSuchOutboxEntry(id):
            "no outbox entry with id \(id). It may belong to another database file."
        }
    }
}
