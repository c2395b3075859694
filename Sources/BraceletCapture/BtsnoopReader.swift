/// Reads a btsnoop file from one contiguous in-memory buffer, record by record.
///
/// The header is checked when the reader is made (wrong magic, version or datalink throw). Records
/// are then produced lazily: iterate with `for record in reader` (iteration stops at a fault, which
/// the iterator keeps in ``Iterator/fault``) or call ``Iterator/nextRecord()`` to get the fault thrown.
/// Records are slices of ``bytes``: iterating allocates nothing per record.
public struct BtsnoopReader: Sequence, Sendable {
    /// The 8 magic bytes every btsnoop file starts with: `btsnoop\0`.
    public static let magic: [UInt8] = [0x62, 0x74, 0x73, 0x6E, 0x6F, 0x6F, 0x70, 0x00]
    /// Size of the file header: magic, version, datalink.
    public static let headerSize = 16
    /// Size of each record header: original length, included length, flags, drops, timestamp.
    public static let recordHeaderSize = 24

    /// The whole file.
    public let bytes: [UInt8]
    /// The datalink type from the header.
    public let datalink: BtsnoopDatalink

    /// Checks the header of a btsnoop file held in `bytes`.
    public init(bytes: [UInt8]) throws(BtsnoopError) {
        guard bytes.count >= Self.headerSize else { throw .fileTooShort(size: bytes.count) }
        guard bytes[0..<8].elementsEqual(Self.magic) else { throw .notBtsnoop(magic: Array(bytes[0..<8])) }
        let version = readUInt32BE(bytes, 8)
        guard version == 1 else { throw .unsupportedVersion(version) }
        let link = readUInt32BE(bytes, 12)
        guard let datalink = BtsnoopDatalink(rawValue: link) else { throw .unsupportedDatalink(link) }
        self.bytes = bytes
        self.datalink = datalink
    }

    /// Reads the file at `path` whole and checks its header.
    public init(contentsOfFile path: String) throws(BtsnoopError) {
        try self.init(bytes: try CaptureFile.read(path: path))
    }

    /// Starts reading at the first record.
    public func makeIterator() -> Iterator { Iterator(bytes: bytes) }

    /// Walks the records of a file. After `next()` returns `nil`, ``fault`` says whether the end
    /// of the file was reached cleanly (`nil`) or a damaged record stopped reading.
    public struct Iterator: IteratorProtocol, Sendable {
        let bytes: [UInt8]
        /// Byte offset of the next record header.
        public private(set) var offset: Int = BtsnoopReader.headerSize
        /// Number of records delivered so far (also the index of the next record).
        public private(set) var recordIndex: Int = 0
        /// The fault that stopped iteration, if any.
        public private(set) var fault: BtsnoopError?

        init(bytes: [UInt8]) { self.bytes = bytes }

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

        /// Like ``nextRecord()`` but returns only positions into the file buffer (no slice, so no
        /// reference counting per record): the ATT reader's hot path.
        mutating func nextHeader() throws(BtsnoopError) -> RecordHeader? {
            if fault != nil { return nil }
            let remaining = bytes.count - offset
            if remaining == 0 { return nil }
            guard remaining >= BtsnoopReader.recordHeaderSize else {
                return try stop(.truncatedRecordHeader(recordIndex: recordIndex, offset: offset, available: remaining))
            }
            let o = offset
            let (original, included, flags, drops, timestamp) = bytes.withUnsafeBytes { raw in
                (raw.loadUnaligned(fromByteOffset: o, as: UInt32.self).bigEndian,
                 raw.loadUnaligned(fromByteOffset: o + 4, as: UInt32.self).bigEndian,
                 raw.loadUnaligned(fromByteOffset: o + 8, as: UInt32.self).bigEndian,
                 raw.loadUnaligned(fromByteOffset: o + 12, as: UInt32.self).bigEndian,
                 raw.loadUnaligned(fromByteOffset: o + 16, as: Int64.self).bigEndian)
            }
            guard included <= BtsnoopError.maximumRecordLength else {
                return try stop(.implausibleRecordLength(recordIndex: recordIndex, offset: o, includedLength: included))
            }
            guard included <= original else {
                return try stop(.includedLengthExceedsOriginal(recordIndex: recordIndex, offset: o,
                                                               includedLength: included, originalLength: original))
            }
            let start = o + BtsnoopReader.recordHeaderSize
            let available = bytes.count - start
            guard Int(included) <= available else {
                return try stop(.truncatedRecord(recordIndex: recordIndex, offset: o, includedLength: included,
                                                 available: available))
            }
            let end = start + Int(included)
            let header = RecordHeader(index: recordIndex, offset: o, originalLength: original, flags: flags,
                                      cumulativeDrops: drops, timestamp: timestamp, packetStart: start, packetEnd: end)
            offset = end
            recordIndex += 1
            return header
        }

        private mutating func stop(_ error: BtsnoopError) throws(BtsnoopError) -> RecordHeader? {
            fault = error
            throw error
        }
    }
}

/// A record's metadata and the position of its packet in the file buffer.
struct RecordHeader {
    var index: Int
    var offset: Int
    var originalLength: UInt32
    var flags: UInt32
    var cumulativeDrops: UInt32
    var timestamp: Int64
    var packetStart: Int
    var packetEnd: Int
}

/// Big-endian u32 at `offset` (caller guarantees 4 bytes).
@inline(__always)
func readUInt32BE(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
    UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
}
