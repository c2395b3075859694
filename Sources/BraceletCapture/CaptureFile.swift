import BraceletProtocol
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whole-file reads and writes for captures, without Foundation: one allocation for the whole file.
public enum CaptureFile {
    /// Reads the whole capture at `path` into one contiguous buffer. Only a regular file of at most
    /// ``InputFile/captureLimit`` bytes is read (see ``InputFile``).
    public static func read(path: String) throws(BtsnoopError) -> [UInt8] {
        do { return try InputFile.read(path: path, what: "capture", limit: InputFile.captureLimit) } catch { throw .unusableFile(error) }
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
private func systemWrite(_ fd: Int32, _ buf: UnsafeRawPointer, _ count: Int) -> Int {
    write(fd, buf, count)
}
