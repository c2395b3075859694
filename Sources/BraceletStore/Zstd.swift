import CZstd
import Foundation

/// Zstandard compression through libzstd: how the store keeps summary documents (`documents.body`).
///
/// A day summary of 0.63 MB of canonical JSON is 41.5 kB at level 1 and 36.7 kB at level 6, where
/// gzip -6 makes 51 kB; level 1 compresses it in about 1 ms (`zstd -b1`: 290 MB/s at load 15 on
/// the 2-core build machine, where level 6 ran at 55 MB/s: 11 ms), and both decompress at the same
/// rate. Documents are stored at level 1: a 30-day ingest compresses 31 of them in the one thread
/// that writes, and level 6 was 20 % of its instructions for 4.8 kB a day (1.4 % of the database).
/// Compression is lossless, so the content hash of a document is the hash of what
/// ``decompress(_:size:)`` returns.
package enum Zstd {
    /// The level documents are stored at.
    package static let level: Int32 = 1

    /// `bytes` as one zstd frame, with its content size in the header and a checksum of the
    /// content at its end (4 bytes), so a damaged frame fails to decompress instead of giving other
    /// bytes. Makes a compression context for this one call: a writer of many documents keeps a
    /// ``Compressor``.
    package static func compress(_ bytes: UnsafeRawBufferPointer, level: Int32 = level) -> [UInt8] {
        Compressor(level: level).compress(bytes)
    }

    /// A compression context kept from one document to the next. Making one allocates and clears
    /// zstd's match tables (about 1 MB at level 1, more at higher levels), page faults included: a
    /// context per document cost a 30-day ingest more than the compression itself. Not thread-safe:
    /// one owner at a time (the store uses its own under its lock).
    package final class Compressor {
        private let context: OpaquePointer

        /// A context that writes frames at `level`, each with its content size and checksum.
        package init(level: Int32 = Zstd.level) {
            guard let context = ZSTD_createCCtx() else { fatalError("zstd could not make a compression context (out of memory)") }
            self.context = context
            ZSTD_CCtx_setParameter(context, ZSTD_c_compressionLevel, level)
            ZSTD_CCtx_setParameter(context, ZSTD_c_checksumFlag, 1)
        }

        deinit { ZSTD_freeCCtx(context) }

        /// `bytes` as one zstd frame (see ``Zstd/compress(_:level:)``).
        package func compress(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
            // ZSTD_compress2 starts a new frame with the parameters set in init (a reset of the
            // session only, so they stay).
            ZSTD_CCtx_reset(context, ZSTD_reset_session_only)
            let bound = ZSTD_compressBound(bytes.count)
            return [UInt8](unsafeUninitializedCapacity: bound) { out, count in
                let written = ZSTD_compress2(context, out.baseAddress, out.count, bytes.baseAddress, bytes.count)
                // Into ZSTD_compressBound bytes, compression fails only without memory.
                precondition(ZSTD_isError(written) == 0, "zstd could not compress: \(String(cString: ZSTD_getErrorName(written)))")
                count = written
            }
        }

        /// `bytes` as one zstd frame.
        package func compress(_ bytes: [UInt8]) -> [UInt8] {
            bytes.withUnsafeBytes { compress($0) }
        }
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
        // Not cleared first: zstd writes every byte it reports, and only those are kept.
        var failure: Failure?
        let output = [UInt8](unsafeUninitializedCapacity: size) { out, count in
            count = 0
            // An empty array has no buffer: a frame stored as empty is still checked to be empty.
            var empty: UInt8 = 0
            do throws(Failure) {
                if let base = out.baseAddress {
                    try decompress(frame, size: size, into: base, context: nil)
                } else {
                    try decompress(frame, size: 0, into: &empty, context: nil)
                }
                count = size
            } catch { failure = error }
        }
        if let failure { throw failure }
        return output
    }

    /// Decompresses one frame that must hold exactly `size` bytes into `output` (room for `size`),
    /// with `context` when the caller keeps one (``Decompressor``), else with one made for the call.
    fileprivate static func decompress(_ frame: UnsafeRawBufferPointer, size: Int, into output: UnsafeMutableRawPointer,
                                       context: OpaquePointer?) throws(Failure) {
        guard size >= 0 else { throw Failure(description: "the stored size \(size) is negative") }
        let produced = if let context {
            ZSTD_decompressDCtx(context, output, size, frame.baseAddress, frame.count)
        } else {
            ZSTD_decompress(output, size, frame.baseAddress, frame.count)
        }
        if ZSTD_isError(produced) != 0 {
            throw Failure(description: "the frame is damaged (\(String(cString: ZSTD_getErrorName(produced))))")
        }
        guard produced == size else { throw Failure(description: "the frame holds \(produced) bytes where \(size) were stored") }
    }

    /// A decompression context kept from one document to the next: `ZSTD_decompress` makes and frees
    /// one (about 100 kB) per call, pages faulted in each time. Not thread-safe: one owner at a time.
    package final class Decompressor {
        private let context: OpaquePointer

        /// A context for frames of any level.
        package init() {
            guard let context = ZSTD_createDCtx() else { fatalError("zstd could not make a decompression context (out of memory)") }
            self.context = context
        }

        deinit { ZSTD_freeDCtx(context) }

        /// Decompresses one frame that must hold exactly `size` bytes into `output` (room for `size`);
        /// a frame that is damaged or holds another length is an error.
        package func decompress(_ frame: UnsafeRawBufferPointer, size: Int, into output: UnsafeMutableRawPointer) throws(Failure) {
            try Zstd.decompress(frame, size: size, into: output, context: context)
        }
    }
}
