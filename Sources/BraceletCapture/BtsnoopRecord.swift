/// One record of a btsnoop file: a captured packet with its metadata.
///
/// `packet` is a slice of the reader's file buffer: reading a record copies nothing.
public struct BtsnoopRecord: Sendable {
    /// Zero-based number of the record in the file.
    public var index: Int
    /// Byte offset of the record's 24-byte header from the start of the file.
    public var offset: Int
    /// Length of the packet as it was on the wire (may exceed `packet.count` if the capture truncated it).
    public var originalLength: UInt32
    /// Record flags. For 1001/1002: bit 0 set = received by the host, bit 1 set = command or event.
    /// For 2001: `adapter index << 16 | monitor opcode`.
    public var flags: UInt32
    /// Packets the capturing side dropped before this record, cumulative.
    public var cumulativeDrops: UInt32
    /// Raw timestamp: microseconds since 1 January of year 0 (btsnoop time). See ``unixMicros``.
    public var timestamp: Int64
    /// The captured packet bytes (`included length` of them), a slice of the file buffer.
    public var packet: ArraySlice<UInt8>

    /// Builds a record (mostly useful in tests; the reader builds them from files).
    public init(index: Int, offset: Int, originalLength: UInt32, flags: UInt32, cumulativeDrops: UInt32,
                timestamp: Int64, packet: ArraySlice<UInt8>) {
        self.index = index
        self.offset = offset
        self.originalLength = originalLength
        self.flags = flags
        self.cumulativeDrops = cumulativeDrops
        self.timestamp = timestamp
        self.packet = packet
    }

    /// The timestamp as Unix microseconds (UTC).
    public var unixMicros: Int64 { BtsnoopTime.unixMicros(fromBtsnoop: timestamp) }
}
