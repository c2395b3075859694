import CSQLite
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// bracelet leaves no WAL behind: a connection that may write copies the WAL into the database file
/// (each page with its checksum) and empties it when it closes, and so does the process for every
/// file it still has open when it exits (a command's store is often still referenced then, and a
/// deinitializer never runs at exit).
///
/// Why: the frames in the WAL carry no page checksums (``PageChecksums``); they get theirs when
/// bracelet's checkpoint copies them into the file. Another SQLite program that opens the file
/// after bracelet (the sqlite3 shell, even for one `SELECT`) checkpoints whatever the WAL holds when
/// it closes last, and those pages then reach the file without checksums. An empty WAL leaves it
/// nothing to copy. SQLite itself checkpoints when the last connection closes, but not while
/// another process (that shell) has the file open, and never when the process exits without closing.
enum LogCheckpoint {
    /// How long a closing connection waits for another process's reader or writer before it leaves
    /// the rest to the next checkpoint (short: a stopping service must not hang on it).
    static let waitMilliseconds: Int32 = 1_000

    /// Database files this process has open for writing, with how many connections each, and how
    /// many connections are closing right now (checkpointing on another thread).
    private static let open = Mutex<(files: [String: Int], closing: Int)>(([:], 0))
    /// Registers the at-exit checkpoint once per process.
    private static let atExit: Void = {
        atexit { LogCheckpoint.truncateAllAtExit() }
    }()

    /// Notes a connection that may write to the file at `path`.
    static func opened(_ path: String) {
        _ = atExit
        open.withLock { $0.files[path, default: 0] += 1 }
    }

    /// Closes such a connection: copies the WAL into the file, empties it, closes. The process's
    /// exit waits for a close under way on another thread (a store released as `main` returns):
    /// ended halfway, its checkpoint would leave the WAL as it was.
    static func close(_ handle: OpaquePointer, path: String) {
        open.withLock { $0.closing += 1 }
        truncate(handle)
        sqlite3_close_v2(handle)
        open.withLock { state in
            state.closing -= 1
            if let count = state.files[path], count > 1 { state.files[path] = count - 1 } else { state.files[path] = nil }
        }
    }

    /// Copies the whole WAL into the file and truncates it to zero bytes, waiting at most
    /// ``waitMilliseconds`` for other connections (also for another checkpoint, for which SQLite
    /// does not wait); returns whether it did. Failures are left to the next checkpoint.
    @discardableResult
    static func truncate(_ handle: OpaquePointer) -> Bool {
        sqlite3_busy_timeout(handle, waitMilliseconds)
        let deadline = ContinuousClock.now + .milliseconds(Int(waitMilliseconds))
        while true {
            let rc = sqlite3_wal_checkpoint_v2(handle, "main", SQLITE_CHECKPOINT_TRUNCATE, nil, nil)
            guard rc == SQLITE_BUSY, ContinuousClock.now < deadline else { return rc == SQLITE_OK }
            usleep(10_000)
        }
    }

    /// At exit: first the closes under way on other threads end (waiting up to 2 s), then for
    /// each file still open here a new connection (through the checksum VFS) copies the WAL into
    /// the file and empties it. The open connections are not touched: another thread may still be
    /// using them, and SQLite coordinates the new connection with them.
    private static func truncateAllAtExit() {
        let deadline = ContinuousClock.now + .seconds(2)
        while open.withLock({ $0.closing > 0 }), ContinuousClock.now < deadline { usleep(5_000) }
        let paths = open.withLock { Array($0.files.keys) }
        for path in paths {
            var handle: OpaquePointer?
            if sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, PageChecksums.vfsName) == SQLITE_OK, let handle {
                // A first read opens the file and its WAL; before it, the connection does not know
                // the file is in WAL mode, and the checkpoint does nothing.
                sqlite3_busy_timeout(handle, waitMilliseconds)
                sqlite3_exec(handle, "PRAGMA schema_version", nil, nil, nil)
                truncate(handle)
            }
            sqlite3_close_v2(handle)
        }
    }
}
