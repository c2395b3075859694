import Foundation

/// A stored document (a summary or a sleep session) as read from its row, still compressed: it is
/// decompressed and checked against its content hash only when read, so a reader that prints
/// documents one at a time holds one of them, not a month of them.
public struct PackedDocument: Sendable, Equatable {
    /// The stored length of the canonical bytes; nil when the row has no document.
    var size: Int?
    /// The zstd frame.
    var frame: [UInt8]?
    /// The content hash the row names.
    var hash: String?
    /// The database it was read from (named in errors).
    public internal(set) var path: String
    /// What it is, for the error.
    var what: String

    /// The document whose `size` and `body` columns are `sizeColumn` and the one after it.
    init(_ statement: Statement, sizeColumn: Int32, hash: String?, path: String, what: String) {
        size = statement.int(at: sizeColumn)
        frame = statement.withBytes(at: sizeColumn + 1) { Array($0.bindMemory(to: UInt8.self)) }
        self.hash = hash
        self.path = path
        self.what = what
    }

    /// Unpacks into `output` (room for ``storedSize()`` bytes) with `decompressor`, then checks the hash.
    func unpack(into output: UnsafeMutableRawPointer, size: Int, decompressor: Zstd.Decompressor) throws(StoreError) {
        do {
            try (frame ?? []).withUnsafeBytes { frame in try decompressor.decompress(frame, size: size, into: output) }
        } catch {
            throw unreadable(error)
        }
        try checkHash(UnsafeRawBufferPointer(start: output, count: size))
    }

    /// The length of the canonical bytes, or the error of a row without a document.
    func storedSize() throws(StoreError) -> Int {
        guard let size else {
            throw .corrupt(path: path, detail: "\(what) has no stored document; run `bracelet db check --db \(path)`")
        }
        return size
    }

    private func unreadable(_ error: any Error) -> StoreError {
        .corrupt(path: path, detail: "the stored document of \(what) cannot be read: \(error); run `bracelet db check --db \(path)`")
    }

    private func checkHash(_ json: some Collection<UInt8>) throws(StoreError) {
        guard SHA256.hex(json) == hash else {
            throw .corrupt(path: path, detail: "\(what) does not match its content hash; run `bracelet db check --db \(path)`")
        }
    }
}

/// A stored daily summary with its stamp, its document still compressed.
public struct PackedSummary: Sendable, Equatable {
    /// The local date (`YYYY-MM-DD`).
    public var localDate: String
    /// What it was computed from; nil when unknown (written before stamps existed, or by a writer
    /// that gave none).
    public var stamp: SummaryStamp?
    /// The canonical JSON, read with a ``DocumentReader``.
    public var document: PackedDocument
}

/// Reads stored documents one after the other into one buffer and one decompression context kept
/// from one document to the next: a fresh buffer per 0.6 MB day is pages faulted in and unmapped
/// each time, which cost `summarize --db` more than the decompression. One owner at a time.
public final class DocumentReader {
    private let decompressor = Zstd.Decompressor()
    private var buffer: UnsafeMutableRawPointer?
    private var capacity = 0

    /// A reader with no buffer yet.
    public init() {}

    deinit { free(buffer) }

    /// The canonical bytes of `document`, decompressed and checked against its content hash; valid
    /// until the next call.
    ///
    /// - Throws: ``StoreError/corrupt(path:detail:)`` when the document is missing, cannot be
    ///   decompressed, or does not match its content hash.
    public func read(_ document: PackedDocument) throws(StoreError) -> UnsafeRawBufferPointer {
        // A negative stored size is refused by the decompressor, before anything is written.
        let size = try document.storedSize()
        let output: UnsafeMutableRawPointer
        if let buffer, size <= capacity {
            output = buffer
        } else {
            free(buffer)
            capacity = max(size, 1)
            guard let grown = malloc(capacity) else { fatalError("no memory for a \(size)-byte document") }
            buffer = grown
            output = grown
        }
        try document.unpack(into: output, size: size, decompressor: decompressor)
        return UnsafeRawBufferPointer(start: output, count: size)
    }
}
