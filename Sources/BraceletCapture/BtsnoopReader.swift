import BraceletProtocol
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a btsnoop file record by record, from memory or streamed from disk.
///
/// The header is checked when the reader is made (wrong magic, version or datalink throw). Records
/// are then produced lazily: iterate with `for record in reader` (iteration stops at a fault, which
/// the iterator keeps in ``Iterator/fault``) or call ``Iterator/nextRecord()`` to get the fault thrown.
/// Records are slices of the iterator's buffer: iterating allocates nothing per record. A reader made
/// with ``init(contentsOfFile:)`` reads the file as it is iterated, a window of about a MiB at a time,
/// so memory stays the same however long the capture; a record's packet is valid until the next record
/// is read (copy it to keep it).
public struct BtsnoopReader: Sequence, Sendable {
    /// The 8 magic bytes every btsnoop file starts with: `btsnoop\0`.
    public static let magic: [UInt8] = [0x62, 0x74, 0x73, 0x6E, 0x6F, 0x6F, 0x70, 0x00]
    /// Size of the file header: magic, version, datalink.
    public static let headerSize = 16
    /// Size of each record header: original length, included length, flags, drops, timestamp.
    public static let recordHeaderSize = 24
    /// Bytes read from disk at a time by a streaming reader.
    static let windowSize = 1 << 20

    /// The whole file, for a reader made from memory; empty for one that streams a file from disk.
    public let bytes: [UInt8]
    /// The datalink type from the header.
    public let datalink: BtsnoopDatalink
    /// Size of the whole file in bytes.
    public let fileSize: Int
    /// The open file a streaming reader reads from.
    let source: CaptureSource?

    /// Checks the header of a btsnoop file held in `bytes`.
    public init(bytes: [UInt8]) throws(BtsnoopError) {
        datalink = try Self.checkHeader(bytes, fileSize: bytes.count)
        self.bytes = bytes
        fileSize = bytes.count
        source = nil
    }

    /// Opens the file at `path` and checks its header; records are read as they are iterated. Only a
    /// regular file of at most ``InputFile/captureLimit`` bytes is read (see ``InputFile``).
    public init(contentsOfFile path: String) throws(BtsnoopError) {
        let source = try CaptureSource(path: path)
        var header = [UInt8](repeating: 0, count: Self.headerSize)
        let got = try source.read(at: 0, into: &header, count: Self.headerSize)
        header.removeLast(Self.headerSize - got)
        datalink = try Self.checkHeader(header, fileSize: source.size)
        bytes = []
        fileSize = source.size
        self.source = source
    }

    private static func checkHeader(_ bytes: [UInt8], fileSize: Int) throws(BtsnoopError) -> BtsnoopDatalink {
        guard bytes.count >= headerSize else { throw .fileTooShort(size: Swift.min(fileSize, bytes.count)) }
        guard bytes[0..<8].elementsEqual(magic) else { throw .notBtsnoop(magic: Array(bytes[0..<8])) }
        let version = readUInt32BE(bytes, 8)
        guard version == 1 else { throw .unsupportedVersion(version) }
        let link = readUInt32BE(bytes, 12)
        guard let datalink = BtsnoopDatalink(rawValue: link) else { throw .unsupportedDatalink(link) }
        return datalink
    }

    /// Starts reading at the first record.
    public func makeIterator() -> Iterator { Iterator(bytes: bytes, source: source) }

    /// Walks the records of a file. After `next()` returns `nil`, ``fault`` says whether the end
    /// of the file was reached cleanly (`nil`) or a damaged record stopped reading.
    public struct Iterator: IteratorProtocol, Sendable {
        /// The bytes held: the whole file, or the window of a streamed file that starts at `base`.
        private(set) var bytes: [UInt8]
        /// File offset of `bytes[0]`.
        private var base = 0
        let source: CaptureSource?
        /// Byte offset of the next record header.
        public private(set) var offset: Int = BtsnoopReader.headerSize
        /// Number of records delivered so far (also the index of the next record).
        public private(set) var recordIndex: Int = 0
        /// The fault that stopped iteration, if any.
        public private(set) var fault: BtsnoopError?

        init(bytes: [UInt8], source: CaptureSource?) {
            self.bytes = bytes
            self.source = source
            if source != nil { base = BtsnoopReader.headerSize }
        }

        /// The next record, or `nil` at the end or after a fault (see ``fault``).
        public mutating func next() -> BtsnoopRecord? {
            do {
                return try nextRecord()
            } catch {
                return nil
            }
        }

        /// The next record, `nil` at the clean end of the file; throws (once) at a damaged record.
        /// After a fault every further call returns `nil`: a btsnoop file has no resynchronisation point.
        public mutating func nextRecord() throws(BtsnoopError) -> BtsnoopRecord? {
            guard let h = try nextHeader() else { return nil }
            return BtsnoopRecord(index: h.index, offset: h.offset, originalLength: h.originalLength, flags: h.flags,
                                 cumulativeDrops: h.cumulativeDrops, timestamp: h.timestamp,
                                 packet: bytes[h.packetStart..<h.packetEnd])
        }

        /// Bytes held from the next record on, after reading more of a streamed file when fewer than
        /// `needed` are held.
        private mutating func held(_ needed: Int) throws(BtsnoopError) -> Int {
            let have = bytes.count - (offset - base)
            guard have < needed, let source, base + bytes.count < source.size else { return have }
            // Keep only the unread bytes, then read at least up to `needed`.
            bytes.removeSubrange(0..<(offset - base))
            base = offset
            let want = Swift.max(BtsnoopReader.windowSize, needed) - bytes.count
            let old = bytes.count
            bytes.append(contentsOf: repeatElement(0, count: want))
            let got: Int
            do throws(BtsnoopError) { got = try source.read(at: base + old, into: &bytes, from: old, count: want) } catch {
                bytes.removeLast(want)
                fault = error
                throw error
            }
            bytes.removeLast(want - got)
            return bytes.count
        }

        /// Like ``nextRecord()`` but returns only positions into ``bytes`` (no slice, so no
        /// reference counting per record): the ATT reader's hot path.
        mutating func nextHeader() throws(BtsnoopError) -> RecordHeader? {
            if fault != nil { return nil }
            let remaining = try held(BtsnoopReader.recordHeaderSize)
            if remaining == 0 { return nil }
            guard remaining >= BtsnoopReader.recordHeaderSize else {
                return try stop(.truncatedRecordHeader(recordIndex: recordIndex, offset: offset, available: remaining))
            }
            var o = offset - base
            let (original, included, flags, drops, timestamp) = bytes.withUnsafeBytes { raw in
                (raw.loadUnaligned(fromByteOffset: o, as: UInt32.self).bigEndian,
                 raw.loadUnaligned(fromByteOffset: o + 4, as: UInt32.self).bigEndian,
                 raw.loadUnaligned(fromByteOffset: o + 8, as: UInt32.self).bigEndian,
                 raw.loadUnaligned(fromByteOffset: o + 12, as: UInt32.self).bigEndian,
                 raw.loadUnaligned(fromByteOffset: o + 16, as: Int64.self).bigEndian)
            }
            guard included <= BtsnoopError.maximumRecordLength else {
                return try stop(.implausibleRecordLength(recordIndex: recordIndex, offset: offset, includedLength: included))
            }
            guard included <= original else {
                return try stop(.includedLengthExceedsOriginal(recordIndex: recordIndex, offset: offset,
                                                               includedLength: included, originalLength: original))
            }
            let available = try held(BtsnoopReader.recordHeaderSize + Int(included)) - BtsnoopReader.recordHeaderSize
            o = offset - base
            guard Int(included) <= available else {
                return try stop(.truncatedRecord(recordIndex: recordIndex, offset: offset, includedLength: included,
                                                 available: available))
            }
            let start = o + BtsnoopReader.recordHeaderSize
            let end = start + Int(included)
            let header = RecordHeader(index: recordIndex, offset: offset, originalLength: original, flags: flags,
                                      cumulativeDrops: drops, timestamp: timestamp, packetStart: start, packetEnd: end)
            offset += BtsnoopReader.recordHeaderSize + Int(included)
            recordIndex += 1
            return header
        }

        private mutating func stop(_ error: BtsnoopError) throws(BtsnoopError) -> RecordHeader? {
            fault = error
            throw error
        }
    }
}

/// A record's metadata and the position of its packet in the iterator's ``BtsnoopReader/Iterator/bytes``.
struct RecordHeader {
    var index: Int
    /// Byte offset of the record header in the file.
    var offset: Int
    var originalLength: UInt32
    var flags: UInt32
    var cumulativeDrops: UInt32
    var timestamp: Int64
    var packetStart: Int
    var packetEnd: Int
}

/// An open capture file read by position, shared by the iterators of one reader; closed when the
/// last of them is gone.
final class CaptureSource: Sendable {
    let path: String
    let descriptor: Int32
    /// Size when opened.
    let size: Int

    init(path: String) throws(BtsnoopError) {
        do { (descriptor, size) = try InputFile.open(path: path, what: "capture", limit: InputFile.captureLimit) } catch {
            throw .unusableFile(error)
        }
        self.path = path
    }

    deinit { close(descriptor) }

    /// Reads up to `count` bytes at file offset `position` into `buffer[start...]`; returns how many
    /// were read (fewer only at the end of the file).
    func read(at position: Int, into buffer: inout [UInt8], from start: Int = 0, count: Int) throws(BtsnoopError) -> Int {
        let (done, failure) = buffer.withUnsafeMutableBytes { raw in
            InputFile.read(descriptor: descriptor, at: position, into: raw.baseAddress! + start, count: count)
        }
        if failure != 0 { throw .fileSystem(path: path, operation: "read", errno: failure) }
        return done
    }
}

/// Big-endian u32 at `offset` (caller guarantees 4 bytes).
@inline(__always)
func readUInt32BE(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
    UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
}
