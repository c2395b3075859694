import BraceletStore
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Appends each entry's JSON payload as one line to a file and fsyncs before confirming.
///
/// Readers must deduplicate by the `key` field: after a crash between the fsync and the store
/// recording the delivery, the entry is appended again (same key, same content). Keep the line with
/// the highest `version` per summary. A line cut short by a crash or a full disk is removed before
/// the retry; a reader should still skip any line that does not parse.
///
/// With `gzip`, each line (its newline included) is appended as one gzip member: the file is a
/// sequence of members, which `zcat` and any gzip reader read as the plain lines, and a member cut
/// short is removed before the retry like a line.
public final class JSONLinesSink: OutboxSink, Sendable {
    /// The file appended to.
    public let path: String
    /// Whether each line is appended as a gzip member.
    public let gzip: Bool
    private let fd: Int32
    /// Appends and fsyncs run here, one at a time, off the cooperative pool.
    private let queue = SerialWorkQueue(label: "bracelet.jsonl")

    /// Opens (creating with mode 0600) `path` for appending, each line as a gzip member when `gzip`.
    /// When a plain file's last line is unfinished (a crash mid-write of another tool), a newline is
    /// added so the next line starts clean.
    ///
    /// - Throws: ``SyncError/cannotOpenJSONLines(path:reason:)`` when the file cannot be opened, or is
    ///   not a regular file one can append to (a device, FIFO, socket, or a file like
    ///   `/proc/self/mem` that cannot be positioned): each line is fsynced and cut back on a failed
    ///   write, which only a regular file allows.
    public init(path: String, gzip: Bool = false) throws {
        self.path = path
        self.gzip = gzip
        let notRegular = "not a regular file (a device, FIFO or socket); give the path of a file"
        var info = stat()
        // Checked before opening too: opening a FIFO for writing would wait for a reader.
        if stat(path, &info) == 0, (info.st_mode & S_IFMT) != S_IFREG {
            throw SyncError.cannotOpenJSONLines(path: path, reason: notRegular)
        }
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0o600)
        guard fd >= 0 else { throw SyncError.cannotOpenJSONLines(path: path, reason: String(cString: strerror(errno))) }
        if fstat(fd, &info) != 0 || (info.st_mode & S_IFMT) != S_IFREG {
            close(fd)
            throw SyncError.cannotOpenJSONLines(path: path, reason: notRegular)
        }
        if lseek(fd, 0, SEEK_END) < 0 {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw SyncError.cannotOpenJSONLines(path: path, reason: "cannot position at its end (\(reason)); give the path of an ordinary file")
        }
        self.fd = fd
        if !gzip, let last = JSONLinesSink.lastByte(of: path), last != UInt8(ascii: "\n") {
            _ = JSONLinesSink.writeAll(fd, [UInt8(ascii: "\n")])
        }
    }

    deinit {
        close(fd)
    }

    /// `jsonl <path>`.
    public var name: String { "jsonl \(path)" }

    /// Appends ``BraceletStore/OutboxEntry/deliveryBody`` and a newline, then fsyncs. A failed write
    /// is cut off again. A full disk or quota is transient (retried later); any other write or fsync
    /// error (an I/O error, a file that cannot be positioned) will not pass by waiting, so it pauses
    /// the sink instead of being retried for ever.
    public func deliver(_ entry: OutboxEntry) async throws -> DeliveryOutcome {
        var line = Array(entry.deliveryBody)
        line.removeAll { $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") }
        line.append(UInt8(ascii: "\n"))
        if gzip { line = Deflate.compress(line) }
        return await queue.run { [line, fd, path] in
            let start = lseek(fd, 0, SEEK_END)
            guard start >= 0 else {
                return .configurationFailure(reason: "cannot position at the end of \(path): \(String(cString: strerror(errno)))", httpStatus: nil)
            }
            if let code = JSONLinesSink.writeAll(fd, line) {
                _ = ftruncate(fd, start)
                return JSONLinesSink.outcome(of: code, doing: "append to \(path)")
            }
            if fsync(fd) != 0 {
                let code = errno
                _ = ftruncate(fd, start)
                return JSONLinesSink.outcome(of: code, doing: "fsync \(path)")
            }
            return .delivered(httpStatus: nil)
        }
    }

    /// A write error as an outcome: out of space (ENOSPC, EDQUOT) or EAGAIN may pass, anything else
    /// is the target's and pauses the sink.
    static func outcome(of code: Int32, doing what: String) -> DeliveryOutcome {
        let reason = "cannot \(what): \(String(cString: strerror(code)))"
        switch code {
        case ENOSPC, EDQUOT, EAGAIN: return .transientFailure(reason: reason, httpStatus: nil)
        default: return .configurationFailure(reason: reason + " (fix the target file or pass another --jsonl)", httpStatus: nil)
        }
    }

    /// Writes every byte, retrying short writes and EINTR. Returns the errno on failure.
    static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Int32? {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return errno
            }
            offset += written
        }
        return nil
    }

    static func lastByte(of path: String) -> UInt8? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        guard lseek(fd, -1, SEEK_END) >= 0 else { return nil }
        var byte: UInt8 = 0
        return read(fd, &byte, 1) == 1 ? byte : nil
    }
}
