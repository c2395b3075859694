import CZstd

/// Zstandard compression through libzstd: how the store keeps summary documents (`documents.body`).
///
/// A day summary of 0.63 MB of canonical JSON is 40 kB at level 1 and 35 kB at level 6 (compressed
/// at 176 MB/s, about 4 ms, and decompressed at 3.7 GB/s by `zstd -b6` on the 2-core build machine),
/// where gzip -6 makes 51 kB.
/// Compression is lossless, so the content hash of a document is the hash of what
/// ``decompress(_:size:)`` returns.
package enum Zstd {
    /// The level documents are stored at.
    package static let level: Int32 = 6

    /// `bytes` as one zstd frame, with its content size in the header and a checksum of the
    /// content at its end (4 bytes), so a damaged frame fails to decompress instead of giving other bytes.
    package static func compress(_ bytes: UnsafeRawBufferPointer, level: Int32 = level) -> [UInt8] {
        guard let context = ZSTD_createCCtx() else { fatalError("zstd could not make a compression context (out of memory)") }
        defer { ZSTD_freeCCtx(context) }
        ZSTD_CCtx_setParameter(context, ZSTD_c_compressionLevel, level)
        ZSTD_CCtx_setParameter(context, ZSTD_c_checksumFlag, 1)
        let bound = ZSTD_compressBound(bytes.count)
        var output = [UInt8](repeating: 0, count: bound)
        let written = output.withUnsafeMutableBytes { out in
            ZSTD_compress2(context, out.baseAddress, out.count, bytes.baseAddress, bytes.count)
        }
        // Into ZSTD_compressBound bytes, compression fails only without memory.
        precondition(ZSTD_isError(written) == 0, "zstd could not compress: \(String(cString: ZSTD_getErrorName(written)))")
        output.removeSubrange(written...)
        return output
    }

    /// `bytes` as one zstd frame.
    package static func compress(_ bytes: [UInt8], level: Int32 = level) -> [UInt8] {
        bytes.withUnsafeBytes { compress($0, level: level) }
    }

    /// What went wrong reading a frame.
    package struct Failure: Error, CustomStringConvertible {
        /// zstd's description, or what did not add up.
        package var description: String
    }

    /// The `size` bytes of one frame; a frame that is damaged or holds another length is an error.
    package static func decompress(_ frame: UnsafeRawBufferPointer, size: Int) throws(Failure) -> [UInt8] {
        guard size >= 0 else { throw Failure(description: "the stored size \(size) is negative") }
        var output = [UInt8](repeating: 0, count: size)
        let produced = output.withUnsafeMutableBytes { out in
            ZSTD_decompress(out.baseAddress, out.count, frame.baseAddress, frame.count)
        }
        if ZSTD_isError(produced) != 0 {
            throw Failure(description: "the frame is damaged (\(String(cString: ZSTD_getErrorName(produced))))")
        }
        guard produced == size else { throw Failure(description: "the frame holds \(produced) bytes where \(size) were stored") }
        return output
    }
}
