/// Writes btsnoop files (any of the three datalinks) into an in-memory buffer.
///
/// Records go to ``bytes``; for large captures call ``drain()`` now and then and append the
/// returned chunk to a file (``CaptureFile/append(_:toDescriptor:path:)``).
public struct BtsnoopWriter: Sendable {
    /// The datalink written in the header; decides how ``append(_:direction:payload:unixMicros:adapterIndex:)`` frames packets.
    public let datalink: BtsnoopDatalink
    /// Bytes written and not yet drained (the first chunk starts with the 16-byte file header).
    public private(set) var bytes: [UInt8]
    /// Records written so far.
    public private(set) var recordCount = 0
    /// Total bytes produced so far, drained or not.
    public private(set) var totalBytes = 0

    /// Starts a file: writes the header (magic, version 1, datalink).
    public init(datalink: BtsnoopDatalink, reservingCapacity capacity: Int = 4096) {
        self.datalink = datalink
        bytes = []
        bytes.reserveCapacity(max(capacity, 64))
        bytes.append(contentsOf: BtsnoopReader.magic)
        appendUInt32BE(1)
        appendUInt32BE(datalink.rawValue)
        totalBytes = bytes.count
    }

    /// Appends one raw record. `flags` is written as given (see ``BtsnoopRecord/flags``);
    /// `originalLength` defaults to the packet size.
    public mutating func appendRecord(packet: some Collection<UInt8>, flags: UInt32, unixMicros: Int64,
                                      originalLength: UInt32? = nil, cumulativeDrops: UInt32 = 0) {
        let before = bytes.count
        let length = UInt32(truncatingIfNeeded: packet.count)
        appendUInt32BE(originalLength ?? length)
        appendUInt32BE(length)
        appendUInt32BE(flags)
        appendUInt32BE(cumulativeDrops)
        let ts = UInt64(bitPattern: BtsnoopTime.btsnoop(fromUnixMicros: unixMicros))
        appendUInt32BE(UInt32(truncatingIfNeeded: ts >> 32))
        appendUInt32BE(UInt32(truncatingIfNeeded: ts))
        bytes.append(contentsOf: packet)
        recordCount += 1
        totalBytes += bytes.count - before
    }

    /// Appends one HCI packet, framed for this file's datalink: an H4 type byte for 1002, direction
    /// and command/event flags for 1001/1002, the monitor opcode and `adapterIndex` for 2001.
    /// `payload` is the HCI packet without H4 type byte (e.g. for ACL: handle/flags, length, data).
    public mutating func append(_ type: HCIPacketType, direction: CaptureDirection, payload: some Collection<UInt8>,
                                unixMicros: Int64, adapterIndex: UInt16 = 0) {
        switch datalink {
        case .hciUART, .hciUnencapsulated:
            var flags: UInt32 = direction == .received ? 1 : 0
            if type == .command || type == .event { flags |= 2 }
            if datalink == .hciUART {
                var packet: [UInt8] = [type.rawValue]
                packet.reserveCapacity(payload.count + 1)
                packet.append(contentsOf: payload)
                appendRecord(packet: packet, flags: flags, unixMicros: unixMicros)
            } else {
                appendRecord(packet: payload, flags: flags, unixMicros: unixMicros)
            }
        case .linuxMonitor:
            let sent = direction == .sent
            let opcode: UInt16
            switch type {
            case .command: opcode = MonitorOpcode.command
            case .event: opcode = MonitorOpcode.event
            case .acl: opcode = sent ? MonitorOpcode.aclSent : MonitorOpcode.aclReceived
            case .sco: opcode = sent ? MonitorOpcode.scoSent : MonitorOpcode.scoReceived
            case .iso: opcode = sent ? MonitorOpcode.isoSent : MonitorOpcode.isoReceived
            }
            appendRecord(packet: payload, flags: UInt32(adapterIndex) << 16 | UInt32(opcode), unixMicros: unixMicros)
        }
    }

    /// Appends a Linux monitor record with any opcode (e.g. ``MonitorOpcode/newIndex``). Returns
    /// `false` and writes nothing when this file's datalink is not 2001.
    @discardableResult
    public mutating func appendMonitorRecord(opcode: UInt16, adapterIndex: UInt16 = 0, payload: some Collection<UInt8>,
                                             unixMicros: Int64) -> Bool {
        guard datalink == .linuxMonitor else { return false }
        appendRecord(packet: payload, flags: UInt32(adapterIndex) << 16 | UInt32(opcode), unixMicros: unixMicros)
        return true
    }

    /// Returns the bytes written since the last drain and empties the buffer (keeping its capacity).
    public mutating func drain() -> [UInt8] {
        let chunk = bytes
        bytes.removeAll(keepingCapacity: true)
        return chunk
    }

    private mutating func appendUInt32BE(_ v: UInt32) {
        bytes.append(UInt8(truncatingIfNeeded: v >> 24))
        bytes.append(UInt8(truncatingIfNeeded: v >> 16))
        bytes.append(UInt8(truncatingIfNeeded: v >> 8))
        bytes.append(UInt8(truncatingIfNeeded: v))
    }
}
