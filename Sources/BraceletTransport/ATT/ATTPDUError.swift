import BraceletProtocol

/// Why bytes could not be decoded as an ATT PDU, or why a response could not be built.
///
/// Byte offsets count from the start of the ATT PDU (offset 0 is the opcode).
public enum ATTPDUError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Zero bytes were given; a PDU has at least its opcode byte.
    case empty
    /// A PDU of fixed size had a different size.
    case wrongLength(opcode: ATTOpcode, expected: Int, actual: Int)
    /// A PDU was shorter than the minimum for its opcode.
    case tooShort(opcode: ATTOpcode, minimum: Int, actual: Int)
    /// A UUID field (from `offset` to the end of the PDU) was neither 2 nor 16 bytes long.
    case invalidUUIDLength(opcode: ATTOpcode, offset: Int, length: Int)
    /// The format byte (offset 1) of a Find Information Response was not 1 (16-bit UUIDs) or 2 (128-bit).
    case invalidFindInformationFormat(UInt8)
    /// The length byte (offset 1) of a Read By Type / Read By Group Type Response was smaller than
    /// the handle fields it must cover.
    case invalidEntryLength(opcode: ATTOpcode, length: UInt8, minimum: Int)
    /// The attribute data list (from offset 2) is not a whole number of entries of the declared length.
    case listLengthMismatch(opcode: ATTOpcode, entryLength: Int, listLength: Int)
    /// A response that must carry at least one entry carried none (or was built with none).
    case emptyList(opcode: ATTOpcode)
    /// A response was built from entries of different lengths; ATT requires one length per response.
    case mixedEntryLengths(opcode: ATTOpcode, firstLength: Int, otherLength: Int, entryIndex: Int)
    /// A response entry is longer than the one-byte length field can describe (255 bytes).
    case entryTooLong(opcode: ATTOpcode, length: Int)

    /// What was wrong and what to do about it.
    public var description: String {
        switch self {
        case .empty:
            return "ATT PDU is empty (0 bytes); a PDU starts with its opcode byte. "
                + "Check the L2CAP frame that carried it (CID 0x0004) and the capture it came from."
        case let .wrongLength(opcode, expected, actual):
            return "\(opcode) must be exactly \(expected) bytes but is \(actual) bytes "
                + "(\(actual < expected ? "missing bytes from offset \(actual)" : "unexpected bytes from offset \(expected)")). "
                + "The sender is not following the Core spec; treat the PDU as invalid (answer Invalid PDU 0x04 if you are the server)."
        case let .tooShort(opcode, minimum, actual):
            return "\(opcode) needs at least \(minimum) bytes but has \(actual) (it ends at offset \(actual)). "
                + "The PDU was truncated; check the L2CAP reassembly or the sender."
        case let .invalidUUIDLength(opcode, offset, length):
            return "\(opcode) carries a UUID of \(length) bytes at offset \(offset); ATT allows only 2 or 16. "
                + "Treat the PDU as invalid (a server answers Invalid PDU 0x04)."
        case let .invalidFindInformationFormat(format):
            return "Find Information Response has format 0x\(hexString(format, uppercase: true)) at offset 1; only 0x01 (16-bit UUIDs) "
                + "and 0x02 (128-bit UUIDs) exist. Treat the response as invalid and rediscover."
        case let .invalidEntryLength(opcode, length, minimum):
            return "\(opcode) declares entries of \(length) bytes at offset 1, less than the \(minimum) bytes of "
                + "handles each entry holds. Treat the response as invalid and repeat the request."
        case let .listLengthMismatch(opcode, entryLength, listLength):
            return "\(opcode) has \(listLength) bytes of entries from offset 2, not a whole number of "
                + "\(entryLength)-byte entries (\(listLength % max(entryLength, 1)) bytes left over). "
                + "The PDU was truncated or is malformed; repeat the request."
        case let .emptyList(opcode):
            return "\(opcode) has no entries; the Core spec requires at least one. "
                + "A server with nothing to return answers with an Error Response (Attribute Not Found 0x0A) instead."
        case let .mixedEntryLengths(opcode, firstLength, otherLength, entryIndex):
            return "\(opcode): entry \(entryIndex) has \(otherLength) bytes but entry 0 has \(firstLength); one response "
                + "carries entries of a single length. Put the differing entries in the next response."
        case let .entryTooLong(opcode, length):
            return "\(opcode): an entry of \(length) bytes does not fit the one-byte length field (max 255). "
                + "Shorten the value (clients read the rest with Read Blob)."
        }
    }
}
