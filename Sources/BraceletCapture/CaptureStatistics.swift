/// Counts gathered while reading a capture: what it holds, whether it holds ATT at all, and how
/// damaged it is.
public struct CaptureStatistics: Sendable, Hashable {
    /// btsnoop records read.
    public var records = 0
    /// Bytes of the file consumed (header plus every record read).
    public var bytesRead = 0
    /// HCI command packets.
    public var commandPackets = 0
    /// HCI event packets.
    public var eventPackets = 0
    /// ACL data packets (fragments), both directions.
    public var aclPackets = 0
    /// SCO and ISO packets (not decoded further).
    public var otherDataPackets = 0
    /// Linux monitor records that are not HCI packets (new index, open index, system note, ...),
    /// counted and otherwise ignored.
    public var ignoredMonitorRecords = 0
    /// Complete L2CAP frames reassembled.
    public var l2capFrames = 0
    /// L2CAP frames on channels other than ATT (signalling 0x0005, SMP 0x0006, ...).
    public var nonATTFrames = 0
    /// ATT PDUs delivered.
    public var attPDUs = 0
    /// LE connections that came up.
    public var connections = 0
    /// Disconnections.
    public var disconnections = 0
    /// Faults reported (including any ``CaptureFault/file(_:)`` fault).
    public var faults = 0
    /// Cumulative drop count of the last record (packets the capturing side lost).
    public var capturedDrops: UInt32 = 0
    /// HCI connection handles that carried ACL data, ascending.
    public private(set) var connectionHandles: [UInt16] = []
    private var attributeHandleBits: [UInt64] = []

    /// Empty statistics.
    public init() {}

    /// Attribute handles seen in ATT PDUs that name one (reads, writes, notifications,
    /// indications, error responses), ascending.
    public var attributeHandles: [UInt16] {
        var out: [UInt16] = []
        for (w, word) in attributeHandleBits.enumerated() where word != 0 {
            for bit in 0..<64 where word & (1 << UInt64(bit)) != 0 {
                out.append(UInt16(w * 64 + bit))
            }
        }
        return out
    }

    mutating func noteConnectionHandle(_ h: UInt16) {
        // Captures hold very few handles: a sorted array beats a Set here.
        if connectionHandles.last == h || connectionHandles.contains(h) { return }
        connectionHandles.append(h)
        connectionHandles.sort()
    }

    mutating func noteAttributeHandle(_ h: UInt16) {
        if attributeHandleBits.isEmpty { attributeHandleBits = Array(repeating: 0, count: 1024) }
        attributeHandleBits[Int(h >> 6)] |= 1 << UInt64(h & 63)
    }
}
