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
public final class JSONLinesSink: OutboxSink, @unchecked Sendable {
    /// The file appended to.
    public let path: String
    private let fd: Int32
    private let lock = NSLock()

    /// Opens (creating with mode 0600) `path` for appending. When the file's last line is unfinished
    /// (a crash mid-write of another tool), a newline is added so the next line starts clean.
    public init(path: String) throws {
        self.path = path
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw SyncError.cannotOpenJSONLines(path: path, reason: String(cString: strerror(errno))) }
        self.fd = fd
        if let last = JSONLinesSink.lastByte(of: path), last != UInt8(ascii: "\n") {
            _ = JSONLinesSink.writeAll(fd, [UInt8(ascii: "\n")])
        }
    }

    deinit {
        close(fd)
    }

    /// `jsonl <path>`.
    public var name: String { "jsonl \(path)" }

    /// Appends the payload and a newline, then fsyncs. A failed write is cut off again and reported
    /// as a transient failure (e.g. disk full), so it is retried later.
    public func deliver(_ entry: OutboxEntry) async throws -> DeliveryOutcome {
        var line = Array(entry.payload)
        line.removeAll { $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") }
        line.append(UInt8(ascii: "\n"))
        return lock.withLock {
            let start = lseek(fd, 0, SEEK_END)
            if let failure = JSONLinesSink.writeAll(fd, line) {
                if start >= 0 { _ = ftruncate(fd, start) }
                return .transientFailure(reason: "cannot append to \(path): \(failure)", httpStatus: nil)
            }
            if fsync(fd) != 0 {
                let reason = String(cString: strerror(errno))
                if start >= 0 { _ = ftruncate(fd, start) }
                return .transientFailure(reason: "cannot fsync \(path): \(reason)", httpStatus: nil)
            }
            return .delivered(httpStatus: nil)
        }
    }

    /// Writes every byte, retrying short writes and EINTR. Returns the error text on failure.
    static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> String? {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return String(cString: strerror(errno))
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
