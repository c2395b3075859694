#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whole-file reads and writes for captures, without Foundation: one allocation for the whole file.
public enum CaptureFile {
    /// Reads the whole file at `path` into one contiguous buffer.
    public static func read(path: String) throws(BtsnoopError) -> [UInt8] {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw .fileSystem(path: path, operation: "open", errno: errno) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw .fileSystem(path: path, operation: "stat", errno: errno) }
        let size = Int(st.st_size)
        var readError: Int32 = 0
        let buffer = [UInt8](unsafeUninitializedCapacity: max(size, 0)) { buf, count in
            var done = 0
            while done < size, let base = buf.baseAddress {
                let n = systemRead(fd, base + done, size - done)
                if n < 0 {
                    if errno == EINTR { continue }
                    readError = errno
                    break
                }
                if n == 0 { break }
                done += n
            }
            count = done
        }
        if readError != 0 { throw .fileSystem(path: path, operation: "read", errno: readError) }
        return buffer
    }

    /// Writes `bytes` to `path`, replacing the file if it exists.
    public static func write(_ bytes: [UInt8], to path: String) throws(BtsnoopError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw .fileSystem(path: path, operation: "create", errno: errno) }
        defer { close(fd) }
        try append(bytes, toDescriptor: fd, path: path)
    }

    /// Appends `bytes` to an open file descriptor (e.g. to stream a large capture in chunks).
    /// `path` is only used in the error message.
    public static func append(_ bytes: [UInt8], toDescriptor fd: Int32, path: String) throws(BtsnoopError) {
        var writeError: Int32 = 0
        bytes.withUnsafeBytes { raw in
            var done = 0
            while done < raw.count, let base = raw.baseAddress {
                let n = systemWrite(fd, base + done, raw.count - done)
                if n < 0 {
                    if errno == EINTR { continue }
                    writeError = errno
                    return
                }
                done += n
            }
        }
        if writeError != 0 { throw .fileSystem(path: path, operation: "write", errno: writeError) }
    }
}

@inline(__always)
private func systemRead(_ fd: Int32, _ buf: UnsafeMutablePointer<UInt8>, _ count: Int) -> Int {
    read(fd, buf, count)
}

@inline(__always)
private func systemWrite(_ fd: Int32, _ buf: UnsafeRawPointer, _ count: Int) -> Int {
    write(fd, buf, count)
}
