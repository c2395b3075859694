import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The canonical JSON of a `summarize` document's sleep sessions, joined by commas, held until the
/// last day is printed: in an unnamed temporary file (a year of sessions is several MB that would
/// otherwise stay in memory to the end), or in memory when no temporary file can be made.
final class SessionSpool {
    private let file: UnsafeMutablePointer<FILE>?
    private var memory: [UInt8] = []
    /// The errno of the first failed write to the temporary file (0: none).
    private var failure: Int32 = 0
    /// Sessions held.
    private(set) var count = 0

    /// An empty spool.
    init() { file = tmpfile() }

    deinit { if let file { fclose(file) } }

    /// Adds a session's canonical JSON.
    func append(_ json: UnsafeRawBufferPointer) {
        if count > 0 { Self.comma.withUnsafeBytes { put($0) } }
        put(json)
        count += 1
    }

    /// Adds a session's canonical JSON.
    func append(_ json: [UInt8]) {
        json.withUnsafeBytes { append($0) }
    }

    private func put(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        guard let file else { return memory.append(contentsOf: bytes) }
        if fwrite(base, 1, bytes.count, file) != bytes.count, failure == 0 { failure = errno }
    }

    /// Hands over the held bytes in order, a block at a time.
    ///
    /// - Throws: ``CLIError`` when the temporary file could not be written or read back.
    func forEachBlock(_ body: (UnsafeBufferPointer<UInt8>) -> Void) throws {
        guard let file else { return memory.withUnsafeBufferPointer(body) }
        if fflush(file) != 0, failure == 0 { failure = errno }
        rewind(file)
        let size = 1 << 20
        let block = UnsafeMutablePointer<UInt8>.allocate(capacity: size)
        defer { block.deallocate() }
        while failure == 0 {
            let n = fread(block, 1, size, file)
            if n > 0 { body(UnsafeBufferPointer(start: block, count: n)) }
            if n < size {
                if ferror(file) != 0 { failure = errno }
                break
            }
        }
        guard failure == 0 else {
            throw CLIError("cannot keep the sleep sessions in a temporary file (\(String(cString: strerror(failure)))); the days above are complete; free space in /tmp and run the command again")
        }
    }

    private static let comma: [UInt8] = [UInt8(ascii: ",")]
}
