#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one check every file a command reads goes through: captures, CSV and ROOK exports, and the
/// database path.
///
/// Only regular files are read (a symbolic link to one is fine). A named pipe would block the command
/// forever, a device could stream without end and a folder holds no data, so each is refused with a
/// message that names the path and what to do. A regular file larger than its kind's limit is refused
/// before anything is allocated, so a damaged or wrong file cannot make a command take its size in memory.
public enum InputFile {
    /// Largest capture read (1 GiB): a year of one bracelet's syncs is about 130 MB.
    public static let captureLimit = 1 << 30
    /// Largest CSV or JSON export read (256 MiB): a year of one-minute rows is about 50 MB.
    public static let exportLimit = 256 << 20

    /// Reads the whole regular file at `path`.
    ///
    /// - Parameters:
    ///   - path: the file.
    ///   - what: what the file should be, for messages ("capture", "CSV file").
    ///   - limit: the largest size accepted, in bytes.
    /// - Throws: ``InputFileError`` naming the path and what to do.
    public static func read(path: String, what: String, limit: Int) throws(InputFileError) -> [UInt8] {
        let (fd, size) = try open(path: path, what: what, limit: limit)
        defer { close(fd) }
        var readError: Int32 = 0
        let bytes = [UInt8](unsafeUninitializedCapacity: max(size, 0)) { buffer, count in
            guard let base = buffer.baseAddress else { return }
            (count, readError) = read(descriptor: fd, at: 0, into: base, count: size)
        }
        if readError != 0 { throw .unreadable(path: path, what: what, reason: errorText(readError)) }
        return bytes
    }

    /// Reads up to `count` bytes at file offset `position` of an open file into `target`, retrying
    /// interrupted and short reads; fewer bytes only at the end of the file.
    ///
    /// - Returns: the bytes read, and the errno of a read that failed (0 when none did).
    public static func read(descriptor fd: Int32, at position: Int, into target: UnsafeMutableRawPointer,
                            count: Int) -> (read: Int, errno: Int32) {
        var done = 0
        while done < count {
            let n = pread(fd, target + done, count - done, off_t(position + done))
            if n < 0 {
                if errno == EINTR { continue }
                return (done, errno)
            }
            if n == 0 { break }
            done += n
        }
        return (done, 0)
    }

    /// Opens the regular file at `path` for reading, with the checks of ``read(path:what:limit:)``,
    /// for a reader that streams it. The caller closes the descriptor.
    ///
    /// - Returns: the open descriptor and the file's size.
    /// - Throws: ``InputFileError`` naming the path and what to do.
    public static func open(path: String, what: String, limit: Int) throws(InputFileError) -> (descriptor: Int32, size: Int) {
        // O_NONBLOCK: opening a named pipe must not wait for a writer before it can be refused.
        let fd = systemOpen(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else { throw openError(path: path, what: what, errno: errno) }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            let code = errno
            close(fd)
            throw .unreadable(path: path, what: what, reason: errorText(code))
        }
        if let kind = nonRegularKind(st.st_mode) {
            close(fd)
            throw .notRegularFile(path: path, what: what, kind: kind)
        }
        let size = Int(st.st_size)
        guard size <= limit else {
            close(fd)
            throw .tooLarge(path: path, what: what, size: size, limit: limit)
        }
        return (fd, size)
    }

    /// Checks a path that another library opens itself (the SQLite database): it must be a regular
    /// file or not exist yet.
    ///
    /// - Returns: whether the file exists.
    /// - Throws: ``InputFileError/notRegularFile(path:what:kind:)`` for a folder, pipe, device or socket.
    @discardableResult
    public static func checkRegularOrMissing(path: String, what: String) throws(InputFileError) -> Bool {
        var st = stat()
        guard stat(path, &st) == 0 else {
            let code = errno
            if code == ENOENT { return false }
            throw openError(path: path, what: what, errno: code)
        }
        if let kind = nonRegularKind(st.st_mode) { throw .notRegularFile(path: path, what: what, kind: kind) }
        return true
    }

    /// What a file that is not regular is, or `nil` for a regular file.
    package static func nonRegularKind(_ mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: nil
        case S_IFDIR: "a folder"
        case S_IFIFO: "a named pipe (FIFO)"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        case S_IFLNK: "a symbolic link"
        default: "not a regular file"
        }
    }

    /// The error of an `open` or `stat` of `path` that failed with `code`.
    package static func openError(path: String, what: String, errno code: Int32) -> InputFileError {
        switch code {
        case ENOENT: .missing(path: path, what: what)
        case EACCES, EPERM: .permissionDenied(path: path, what: what)
        default: .unreadable(path: path, what: what, reason: errorText(code))
        }
    }

    /// What to do when this user may not read or write a file bracelet needs: the gateway's
    /// database and secrets belong to its service user (folder `/var/lib/bracelet`, mode 0700), so
    /// a command run by a person gets permission denied there.
    public static let permissionAdvice = "run the command as the user the file belongs to; the gateway's database and secret "
        + "files belong to its service user: sudo -u bracelet bracelet ..."

    static func errorText(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "errno \(code)" }
        return String(cString: text)
    }
}

/// Why an input file was not read; each message names the file and what to do.
public enum InputFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Nothing exists at the path.
    case missing(path: String, what: String)
    /// The path names a folder, pipe, device or socket.
    case notRegularFile(path: String, what: String, kind: String)
    /// The file is larger than any genuine input of its kind.
    case tooLarge(path: String, what: String, size: Int, limit: Int)
    /// This user may not read it, or may not reach its folder (EACCES, EPERM).
    case permissionDenied(path: String, what: String)
    /// The system refused to open or read it (an I/O error).
    case unreadable(path: String, what: String, reason: String)

    /// What was wrong and what to do.
    public var description: String {
        switch self {
        case let .missing(path, what):
            "no \(what) at \(path): check the path"
        case let .notRegularFile(path, what, kind):
            "\(path) is \(kind), not a \(what): "
                + (kind == "a folder" ? "name a file inside it" : "name a regular file (save what a pipe or device produces to a file first)")
        case let .tooLarge(path, what, size, limit):
            "\(path) has \(size >> 20) MiB, more than any \(what) bracelet reads (\(limit >> 20) MiB): check that it is the right file, or split it"
        case let .permissionDenied(path, what):
            "cannot read the \(what) \(path): permission denied; " + InputFile.permissionAdvice
        case let .unreadable(path, what, reason):
            "cannot read the \(what) \(path): \(reason); check its permissions"
        }
    }
}

@inline(__always)
private func systemOpen(_ path: String, _ flags: Int32) -> Int32 {
    open(path, flags)
}

