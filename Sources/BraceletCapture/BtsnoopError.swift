import BraceletProtocol

/// Why a btsnoop file could not be read (further). Every case names where in the file it happened
/// and what to do. Records before a record-level fault have already been delivered.
public enum BtsnoopError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file is shorter than the 16-byte btsnoop header.
    case fileTooShort(size: Int)
    /// The first 8 bytes are not `btsnoop\0`.
    case notBtsnoop(magic: [UInt8])
    /// The version field (offset 8) is not 1.
    case unsupportedVersion(UInt32)
    /// The datalink field (offset 12) is not 1001, 1002 or 2001.
    case unsupportedDatalink(UInt32)
    /// Fewer than the 24 bytes of a record header remain at `offset`.
    case truncatedRecordHeader(recordIndex: Int, offset: Int, available: Int)
    /// The record at `offset` declares `includedLength` bytes of packet but the file ends after
    /// `available` of them: the file was cut short (typical of a capture copied while still being written).
    case truncatedRecord(recordIndex: Int, offset: Int, includedLength: UInt32, available: Int)
    /// The record at `offset` declares a length far larger than any HCI packet: the file is damaged there.
    case implausibleRecordLength(recordIndex: Int, offset: Int, includedLength: UInt32)
    /// The record at `offset` includes more bytes than the original packet had.
    case includedLengthExceedsOriginal(recordIndex: Int, offset: Int, includedLength: UInt32, originalLength: UInt32)
    /// The capture file is missing, not a regular file, too large or unreadable.
    case unusableFile(InputFileError)
    /// A file could not be opened, read or written.
    case fileSystem(path: String, operation: String, errno: Int32)

    /// The largest included length accepted per record: an HCI packet is at most 4 + 65 535 bytes;
    /// the margin covers monitor headers.
    public static let maximumRecordLength: UInt32 = 65_536 + 64

    /// What was wrong and what to do about it.
    public var description: String {
        switch self {
        case let .fileTooShort(size):
            return "Not a btsnoop file: it has \(size) bytes, fewer than the 16-byte header. "
                + "Check that the path names a capture (Android bugreport btsnoop_hci.log or `btmon -w` output)."
        case let .notBtsnoop(magic):
            return "Not a btsnoop file: bytes 0-7 are \(hexString(magic, uppercase: true, separator: " ")), "
                + "expected 62 74 73 6E 6F 6F 70 00 (\"btsnoop\\0\"). A pcap/pcapng capture must be converted first "
                + "(e.g. `editcap -F btsnoop`), and a bugreport zip must be unpacked."
        case let .unsupportedVersion(v):
            return "Unsupported btsnoop version \(v) at byte offset 8; only version 1 exists. The file is damaged or not btsnoop."
        case let .unsupportedDatalink(d):
            return "Unsupported btsnoop datalink \(d) at byte offset 12; supported are 1001 (HCI), 1002 (H4, Android) and "
                + "2001 (Linux monitor, btmon). Re-capture with Android's HCI snoop log or `btmon -w`."
        case let .truncatedRecordHeader(index, offset, available):
            return "Record #\(index) at byte offset \(offset) is truncated: only \(available) of its 24 header bytes are in the file. "
                + "The capture was cut short; all records before it were read. Copy the file again after the capture has stopped."
        case let .truncatedRecord(index, offset, length, available):
            return "Record #\(index) at byte offset \(offset) declares \(length) packet bytes but the file ends after \(available). "
                + "The capture was cut short; all records before it were read. Copy the file again after the capture has stopped."
        case let .implausibleRecordLength(index, offset, length):
            return "Record #\(index) at byte offset \(offset) declares \(length) packet bytes, more than any HCI packet "
                + "(max \(BtsnoopError.maximumRecordLength)): the file is damaged there and later records cannot be located. "
                + "All records before it were read; recover the rest from another copy of the capture."
        case let .includedLengthExceedsOriginal(index, offset, included, original):
            return "Record #\(index) at byte offset \(offset) includes \(included) bytes of a packet only \(original) bytes long: "
                + "the record header is damaged. All records before it were read; the rest cannot be trusted."
        case let .unusableFile(error):
            return error.description
        case let .fileSystem(path, operation, errno):
            return "Could not \(operation) \(path) (errno \(errno)). Check that the path exists and is readable/writable."
        }
    }
}

