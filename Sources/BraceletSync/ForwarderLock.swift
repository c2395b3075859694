import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Makes sure only one forwarder works on a database at a time: an exclusive `flock` on
/// `<database>-sync.lock`, released when this value is released or the process dies (even by
/// SIGKILL). Two forwarders would not lose anything, but would send entries twice.
public final class ForwarderLock: @unchecked Sendable {
    /// The lock file.
    public let path: String
    private let fd: Int32

    /// Takes the lock for the database at `databasePath`.
    ///
    /// - Throws: ``SyncError/anotherForwarderRunning(lockPath:)`` when another forwarder holds it,
    ///   ``SyncError/cannotLock(path:reason:)`` when the lock file cannot be created.
    public init(databasePath: String) throws {
        path = databasePath + "-sync.lock"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw SyncError.cannotLock(path: path, reason: String(cString: strerror(errno))) }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let busy = errno == EWOULDBLOCK
            let reason = String(cString: strerror(errno))
            close(fd)
            throw busy ? SyncError.anotherForwarderRunning(lockPath: path) : SyncError.cannotLock(path: path, reason: reason)
        }
        self.fd = fd
    }

    deinit {
        flock(fd, LOCK_UN)
        close(fd)
    }
}
