import CZlib

/// Deflate compression through zlib, as gzip members (RFC 1952, which HTTP's `Content-Encoding:
/// gzip` and `zcat` read): how bracelet compresses what leaves it, webhook bodies and JSON Lines files.
/// What stays in the store is compressed with ``Zstd`` (smaller and faster for the same documents).
///
/// A day summary is about 0.6 MB of canonical JSON made mostly of per-slot arrays; gzip makes it
/// about a twelfth of that. Compression is lossless: the bytes that come out of ``decompress(_:)``
/// are the ones that went in, so content hashes over them do not change.
package enum Deflate {
    /// zlib's window bits for a gzip member (header, CRC-32 and length trailer) with the largest window.
    private static let gzipWindowBits: Int32 = 15 + 16

    /// The level the sinks use: zlib's default, 6, makes a day summary (0.63 MB) 51 kB where level 1
    /// makes it 62 kB, for about twice the CPU (docs/footprint.md).
    package static let defaultLevel: Int32 = 6

    /// `bytes` compressed in one call.
    package static func compress(_ bytes: UnsafeRawBufferPointer, level: Int32 = defaultLevel) -> [UInt8] {
        var stream = z_stream()
        // Fails only without memory or with arguments that are constants here.
        guard deflateInit2_(&stream, level, Z_DEFLATED, gzipWindowBits, 8, Z_DEFAULT_STRATEGY, zlibVersion(),
                            Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            fatalError("zlib could not start a deflate stream (out of memory)")
        }
        defer { deflateEnd(&stream) }
        let bound = Int(deflateBound(&stream, uLong(bytes.count)))
        var output = [UInt8](repeating: 0, count: bound)
        let written = output.withUnsafeMutableBufferPointer { out -> Int in
            stream.next_in = UnsafeMutablePointer(mutating: bytes.baseAddress?.assumingMemoryBound(to: Bytef.self))
            stream.avail_in = uInt(bytes.count)
            stream.next_out = out.baseAddress
            stream.avail_out = uInt(out.count)
            // The output holds deflateBound bytes, so one call finishes the stream.
            let status = deflate(&stream, Z_FINISH)
            precondition(status == Z_STREAM_END, "zlib deflate into deflateBound bytes did not finish (\(status))")
            return out.count - Int(stream.avail_out)
        }
        output.removeSubrange(written...)
        return output
    }

    /// `bytes` compressed in one call.
    package static func compress(_ bytes: [UInt8], level: Int32 = defaultLevel) -> [UInt8] {
        bytes.withUnsafeBytes { compress($0, level: level) }
    }

    /// What went wrong reading a compressed stream.
    package struct Failure: Error, CustomStringConvertible {
        /// zlib's description, or what did not add up.
        package var description: String
    }

    /// The bytes of a complete gzip (or zlib) stream, by zlib's header detection; an input made of
    /// several gzip members (a JSON Lines file) is read to the end of all of them.
    package static func decompress(_ bytes: UnsafeRawBufferPointer) throws -> [UInt8] {
        var stream = z_stream()
        guard inflateInit2_(&stream, 15 + 32, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw Failure(description: "zlib could not start an inflate stream (out of memory)")
        }
        defer { inflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: max(64, bytes.count * 8))
        var produced = 0
        var consumed = 0
        while true {
            let status = output.withUnsafeMutableBufferPointer { out -> Int32 in
                stream.next_in = UnsafeMutablePointer(mutating: bytes.baseAddress?.assumingMemoryBound(to: Bytef.self)).map { $0 + consumed }
                stream.avail_in = uInt(bytes.count - consumed)
                stream.next_out = out.baseAddress! + produced
                stream.avail_out = uInt(out.count - produced)
                let status = inflate(&stream, Z_NO_FLUSH)
                produced = out.count - Int(stream.avail_out)
                consumed = bytes.count - Int(stream.avail_in)
                return status
            }
            switch status {
            case Z_STREAM_END where consumed < bytes.count:
                // Another gzip member follows (concatenated members are one file to `zcat`).
                guard inflateReset(&stream) == Z_OK else { throw Failure(description: "zlib could not restart for the next member") }
            case Z_STREAM_END:
                output.removeSubrange(produced...)
                return output
            case Z_OK, Z_BUF_ERROR:
                if stream.avail_out == 0 {
                    output.append(contentsOf: repeatElement(0, count: output.count))
                } else if status == Z_BUF_ERROR {
                    // Room to write and nothing more to read: the input ended inside the stream.
                    throw Failure(description: "the stream ends early, after \(consumed) of \(bytes.count) bytes")
                }
            default:
                let message = stream.msg.map { String(cString: $0) } ?? "error \(status)"
                throw Failure(description: "the stream is damaged (\(message))")
            }
        }
    }

    /// The bytes of a complete stream, as the buffer form above reads them.
    package static func decompress(_ bytes: [UInt8]) throws -> [UInt8] {
        try bytes.withUnsafeBytes { try decompress($0) }
    }
}
