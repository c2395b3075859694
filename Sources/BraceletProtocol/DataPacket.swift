/// One packet of file content, notified on the data-stream characteristic after a read request.
///
/// Wire form (little-endian), at most 168 bytes:
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 2 | sequence number: 0 for the first packet of a read request, +1 per packet |
/// | 2 | 4 | file offset of the first payload byte |
/// | 6 | 1 | payload length (1...158) |
/// | 7 | 1 | flags: bit 0 = last packet of this read request; bits 1-7 reserved, 0 |
/// | 8 | n | payload |
/// | 8+n | 2 | CRC-16/CCITT-FALSE over bytes 0 ..< 8+n |
///
/// A client detects a lost packet by a gap in sequence numbers or offsets, a repeated packet by an
/// offset it already holds, and re-requests from the first missing offset.
public struct DataPacket: Sendable, Hashable {
    /// Bytes before the payload.
    public static let headerLength = 8
    /// Bytes after the payload (the CRC-16).
    public static let trailerLength = 2
    /// The largest packet the bracelet sends.
    public static let maximumLength = 168
    /// The largest payload: 168 - 10.
    public static let maximumPayload = maximumLength - headerLength - trailerLength

    /// Sequence number within one read request.
    public var sequence: UInt16
    /// File offset of `payload[0]`.
    public var offset: UInt32
    /// Whether this is the last packet of the read request.
    public var isLast: Bool
    /// File content.
    public var payload: [UInt8]

    /// Creates a packet.
    public init(sequence: UInt16, offset: UInt32, isLast: Bool, payload: [UInt8]) {
        self.sequence = sequence
        self.offset = offset
        self.isLast = isLast
        self.payload = payload
    }

    /// Payload bytes per packet for an ATT MTU: a notification carries MTU - 3 bytes of value.
    public static func payloadCapacity(attMTU: Int) -> Int {
        max(1, min(maximumLength, attMTU - 3) - headerLength - trailerLength)
    }

    /// The packet as notified, CRC included.
    public func encode() -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(payload.count + 10)
        out.appendLittleEndian(sequence)
        out.appendLittleEndian(offset)
        out.append(UInt8(truncatingIfNeeded: payload.count))
        out.append(isLast ? 1 : 0)
        out.append(contentsOf: payload)
        out.appendLittleEndian(CRC16.checksum(out))
        return out
    }

    /// Decodes a notified packet, checking its length field, CRC and header values.
    ///
    /// A payload length above 158 or a reserved flag bit makes the packet corrupt, like a failed CRC:
    /// a CRC-16 lets about one damaged packet in 65,536 through, and a header no bracelet sends is the
    /// cheapest second check; a corrupt packet costs only a re-request of its range.
    public init<C: Collection>(bytes: C) throws(FrameError) where C.Element == UInt8 {
        let frame = Array(bytes)
        guard frame.count >= DataPacket.headerLength + 1 + DataPacket.trailerLength else {
            throw .packetLength(expected: DataPacket.headerLength + 1 + DataPacket.trailerLength, actual: frame.count)
        }
        let length = Int(frame[6])
        guard length >= 1, frame.count == DataPacket.headerLength + length + DataPacket.trailerLength else {
            throw .packetLength(expected: DataPacket.headerLength + length + DataPacket.trailerLength, actual: frame.count)
        }
        let body = frame[0..<(frame.count - 2)]
        let crc = CRC16.checksum(body)
        let found: UInt16 = frame.readLittleEndian(at: frame.count - 2)!
        guard crc == found else { throw .packetCRCMismatch(computed: crc, found: found) }
        guard length <= DataPacket.maximumPayload else { throw .packetField(name: "payload length", value: length) }
        guard frame[7] & ~1 == 0 else { throw .packetField(name: "flags", value: Int(frame[7])) }
        sequence = frame.readLittleEndian(at: 0)!
        offset = frame.readLittleEndian(at: 2)!
        isLast = frame[7] & 1 != 0
        payload = Array(frame[8..<(8 + length)])
    }
}
