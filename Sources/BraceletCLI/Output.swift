import ArgumentParser
import BraceletProtocol
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Writes text to standard error, keeping stdout for data: the one writer beneath ``Log`` (commands
/// write their diagnostics through ``Log``, which filters them by level). A standard error that cannot
/// be written to loses the line rather than stopping the command.
func printError(_ message: String, terminated terminator: String = "\n") {
    try? FileHandle.standardError.write(contentsOf: Data((message + terminator).utf8))
}

/// A buffered writer to standard output or a file: records are appended as text and written in
/// large chunks.
///
/// `-o PATH` writes only to a regular file (created or truncated): a device node, named pipe, folder
/// or symbolic link at PATH is refused, never replaced, since replacing one (say /dev/null, as root)
/// breaks the system and following a link lets someone else choose which file is overwritten.
/// A write that fails (disk full, closed pipe) is kept and reported by ``flush()`` instead of trapping.
final class TextOutput {
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private let path: String?
    private var writeError: (any Error)?
    /// Whether ``preallocate(_:)`` reserved blocks that ``releaseUnwritten()`` has not given back.
    private var preallocated = false

    /// Standard output, or the regular file at `path` (created or truncated).
    convenience init(path: String?) throws {
        if let path {
            var st = stat()
            if lstat(path, &st) == 0, let kind = InputFile.nonRegularKind(st.st_mode) {
                throw CLIError("\(path) is \(kind): -o writes only regular files and never replaces anything else; name a new file, or leave out -o and redirect standard output")
            }
            // O_NOFOLLOW: a link put there after the check is refused too.
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o644)
            guard fd >= 0 else {
                throw CLIError("cannot create \(path) (\(String(cString: strerror(errno)))): check that its folder exists and is writable")
            }
            self.init(handle: FileHandle(fileDescriptor: fd, closeOnDealloc: true), path: path)
        } else {
            self.init(handle: FileHandle.standardOutput, path: nil)
        }
    }

    /// A writer to an open handle; `path` names it in messages (`nil`: standard output).
    init(handle: FileHandle, path: String?) {
        self.handle = handle
        self.path = path
        buffer.reserveCapacity(1 << 16)
    }

    /// Appends text.
    func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= 1 << 16 { writeBuffer() }
    }

    /// Appends bytes that are already UTF-8 text.
    func write(bytes: [UInt8]) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= 1 << 16 { writeBuffer() }
    }

    /// Writes a large block of bytes that are already UTF-8 text straight to the file, after what is
    /// buffered: the path of writers that fill their own block.
    func write(raw: UnsafeRawBufferPointer) {
        writeBuffer()
        guard writeError == nil, let base = raw.baseAddress else { return }
        var done = 0
        while done < raw.count {
            let n = Glibc.write(handle.fileDescriptor, base + done, raw.count - done)
            if n < 0 {
                if errno == EINTR { continue }
                writeError = SystemWriteError(code: errno)
                return
            }
            done += n
        }
    }

    /// Reserves `bytes` of disk for the file before it is written (`fallocate`, its size left as
    /// it is), when it is a file and the file system can: a write into reserved blocks skips the
    /// file system's per-page reservation, which cost writing a month's 90 MB replay as much as
    /// copying the bytes (10 against 17-24 ms in a test program on this machine's ext4). Nothing
    /// happens when the space cannot be reserved. ``releaseUnwritten()`` gives back what was not
    /// written.
    func preallocate(_ bytes: Int) {
        guard path != nil, bytes > 0, let reserve = Self.fallocate else { return }
        preallocated = reserve(handle.fileDescriptor, Self.keepSize, 0, off_t(bytes)) == 0
    }

    /// glibc's `fallocate(2)`, which Swift's Glibc module leaves out (it is a GNU extension), found
    /// by name with its C signature; nil when the C library has none.
    private static let fallocate: (@convention(c) (Int32, Int32, off_t, off_t) -> Int32)? =
        dlsym(UnsafeMutableRawPointer(bitPattern: 0), "fallocate").map { unsafeBitCast($0, to: (@convention(c) (Int32, Int32, off_t, off_t) -> Int32).self) }
    /// FALLOC_FL_KEEP_SIZE from <linux/falloc.h>: the blocks are reserved, the file's size is not changed.
    private static let keepSize: Int32 = 1

    /// Gives back the reserved blocks past the end of what was written (see ``preallocate(_:)``):
    /// truncating a file to its own size frees the blocks beyond it.
    func releaseUnwritten() {
        guard preallocated else { return }
        writeBuffer()
        var info = stat()
        if fstat(handle.fileDescriptor, &info) == 0 { _ = ftruncate(handle.fileDescriptor, info.st_size) }
        preallocated = false
    }

    /// Writes what is buffered; throws when this or an earlier write failed.
    func flush() throws {
        writeBuffer()
        if let writeError {
            throw CLIError("cannot write to \(path ?? "standard output") (\(Self.reason(writeError))): free space or fix the destination and run the command again")
        }
    }

    private func writeBuffer() {
        guard !buffer.isEmpty else { return }
        if writeError == nil {
            do { try handle.write(contentsOf: Data(buffer)) } catch { writeError = error }
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// The system's words for a failed write (Foundation wraps the errno in a Cocoa error).
    static func reason(_ error: any Error) -> String {
        if let failure = error as? SystemWriteError { return String(cString: strerror(failure.code)) }
        if let posix = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError, posix.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(posix.code)))
        }
        return error.localizedDescription
    }

    deinit {
        writeBuffer()
    }
}

/// A `write(2)` that failed, with its errno.
struct SystemWriteError: Error {
    var code: Int32
}

/// An error the CLI reports as one line: what was wrong and what to do.
struct CLIError: Error, CustomStringConvertible {
    var description: String
    /// Exit code for this failure.
    var exitCode: Int32
    /// The error this one reports, for a caller that handles some causes itself.
    var cause: (any Error)?
    init(_ description: String, exitCode: Int32 = 1, cause: (any Error)? = nil) {
        self.description = description
        self.exitCode = exitCode
        self.cause = cause
    }
}

extension Bracelet {
    /// Runs the command like ArgumentParser does, except that a ``CLIError`` exits with its own
    /// code: the exit status each command's help promises (2 for no data, 3 for damaged input).
    static func main() async {
        do {
            try ArgumentText.check(Array(CommandLine.arguments.dropFirst()))
            var command = try await asyncParseAsRoot(nil)
            (command as? any LoggingCommand)?.log.apply()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as CLIError {
            Log.error("Error: \(error.description)")
            Foundation.exit(error.exitCode)
        } catch {
            exit(withError: error)
        }
    }
}
