/// A sealed metrics or beats file checked for structure and CRC: where its complete records are,
/// and what, if anything, is wrong with it.
///
/// Inspection never throws past the header: a truncated file still yields every complete record
/// before the cut, with a ``FileFormatError`` saying where the file ended.
public struct SealedFile: Sendable {
    /// The validated header.
    public var header: FileHeader
    /// Byte range of the complete records within the inspected buffer.
    public var recordBytes: Range<Int>
    /// Number of complete records (at most `header.recordCount`).
    public var completeRecords: Int
    /// What is wrong with the file; empty when it is whole and its CRC matches.
    public var faults: [FileFormatError]

    /// Whether the CRC was checked and matched.
    public var isVerified: Bool { faults.isEmpty }

    /// Inspects `bytes`, which start with a file header.
    public init(bytes: UnsafeRawBufferPointer) throws(FileFormatError) {
        header = try FileHeader(bytes: bytes)
        faults = []
        let recordsEnd = FileHeader.length + header.recordCount * header.recordSize
        if bytes.count < recordsEnd + FileHeader.trailerLength {
            completeRecords = min(header.recordCount, (bytes.count - FileHeader.length) / header.recordSize)
            recordBytes = FileHeader.length..<(FileHeader.length + completeRecords * header.recordSize)
            let what = completeRecords < header.recordCount ? "record \(completeRecords) of \(header.recordCount)" : "the file CRC"
            let needed = completeRecords < header.recordCount ? header.recordSize : FileHeader.trailerLength
            faults.append(.truncated(offset: bytes.count, needed: needed, what: what))
            return
        }
        completeRecords = header.recordCount
        recordBytes = FileHeader.length..<recordsEnd
        let stored = bytes.loadLittleEndian(at: recordsEnd, as: UInt32.self)
        let computed = CRC32.checksum(UnsafeRawBufferPointer(rebasing: bytes[0..<recordsEnd]))
        if stored != computed {
            faults.append(.crcMismatch(offset: recordsEnd, computed: computed, stored: stored))
        }
        let end = recordsEnd + FileHeader.trailerLength
        if bytes.count > end {
            faults.append(.trailingBytes(offset: end, count: bytes.count - end))
        }
    }

    /// Builds a sealed file: header, records and CRC-32.
    public static func seal(header: FileHeader, records: [UInt8]) -> [UInt8] {
        var out = header.encode()
        out += records
        out.appendLittleEndian(CRC32.checksum(out))
        return out
    }
}
