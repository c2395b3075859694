import BraceletTransport

/// A deliberate defect in the ACL fragments of one L2CAP frame, to produce damaged captures for tests.
public enum ACLFragmentDamage: Sendable, Hashable {
    /// Leave out the fragment with this index (0 is the start fragment).
    case dropFragment(Int)
    /// Write the fragment with this index twice.
    case duplicateFragment(Int)
    /// Declare an L2CAP length that differs from the real payload length by this many bytes.
    case l2capLengthOffBy(Int)
}

/// Writes realistic btsnoop captures of an LE link carrying ATT: LE Connection Complete when the
/// link comes up (so Wireshark knows it is LE), each ATT PDU as an L2CAP frame on CID 0x0004 split
/// into ACL packets of at most ``maxACLPayload`` bytes, Disconnection Complete when it drops, and
/// optionally Number Of Completed Packets events for sent data.
///
/// Appending a PDU while no link is up first brings one up (with the next connection handle).
public struct ATTCaptureWriter: Sendable {
    /// The underlying btsnoop writer (``BtsnoopWriter/bytes`` holds the output).
    public private(set) var btsnoop: BtsnoopWriter
    /// Largest ACL data payload per packet. 27 is the LE default (no data length extension), so long
    /// notifications are split into several fragments.
    public let maxACLPayload: Int
    /// Whether a Number Of Completed Packets event follows every sent ACL packet.
    public var reportsCompletedPackets: Bool
    /// Controller index written in 2001 records.
    public let adapterIndex: UInt16
    /// The peer (bracelet) address used for connections, 6 bytes in text order.
    public var peerAddress: [UInt8]
    /// Handle of the link that is up, or `nil` when none is.
    public private(set) var connectionHandle: UInt16?
    /// The handle the next connection gets (then incremented).
    public var nextConnectionHandle: UInt16 = 0x0040
    private var wroteMonitorPreamble = false
    private let hostAddress: [UInt8]

    /// Starts a capture.
    /// - Parameters:
    ///   - datalink: 1002 (H4, Android) or 2001 (Linux monitor, btmon); 1001 also works.
    ///   - maxACLPayload: fragment size in bytes, clamped to 1...65 535 (the ACL length field is 16 bits).
    ///   - reportsCompletedPackets: add Number Of Completed Packets events after sent ACL packets.
    ///   - peerAddress: the bracelet's address, 6 bytes in text order.
    ///   - hostAddress: the capturing controller's address (only written in 2001 files).
    ///   - adapterIndex: controller index for 2001 files.
    public init(datalink: BtsnoopDatalink = .hciUART, maxACLPayload: Int = 27, reportsCompletedPackets: Bool = false,
                peerAddress: [UInt8] = [0xC2, 0x87, 0x00, 0x00, 0x00, 0x01],
                hostAddress: [UInt8] = [0x00, 0x1A, 0x7D, 0xDA, 0x71, 0x13], adapterIndex: UInt16 = 0,
                reservingCapacity capacity: Int = 1 << 16) {
        btsnoop = BtsnoopWriter(datalink: datalink, reservingCapacity: capacity)
        self.maxACLPayload = min(max(1, maxACLPayload), 65_535)
        self.reportsCompletedPackets = reportsCompletedPackets
        self.peerAddress = HCIEventBuilder.sixBytes(peerAddress)
        self.hostAddress = HCIEventBuilder.sixBytes(hostAddress)
        self.adapterIndex = adapterIndex
    }

    /// Everything written and not yet drained.
    public var bytes: [UInt8] { btsnoop.bytes }

    /// Returns the bytes written since the last drain and empties the buffer (for streaming to a file).
    public mutating func drain() -> [UInt8] { btsnoop.drain() }

    /// Brings a link up: writes LE Connection Complete. If a link is already up it is first taken
    /// down (reason 0x16, terminated by local host). `handle` defaults to ``nextConnectionHandle``.
    public mutating func connect(handle: UInt16? = nil, unixMicros: Int64) {
        if connectionHandle != nil { disconnect(reason: 0x16, unixMicros: unixMicros) }
        let h = (handle ?? nextConnectionHandle) & 0x0FFF
        nextConnectionHandle = (h &+ 1) & 0x0FFF
        connectionHandle = h
        writeEvent(HCIEventBuilder.leConnectionComplete(handle: h, peerAddress: peerAddress), unixMicros: unixMicros)
    }

    /// Notes that the link is now encrypted: writes Encryption Change (on, AES-CCM). Does nothing when no link is up.
    public mutating func encryptionOn(unixMicros: Int64) {
        guard let h = connectionHandle else { return }
        writeEvent(HCIEventBuilder.encryptionChange(handle: h, enabled: true), unixMicros: unixMicros)
    }

    /// Takes the link down: writes Disconnection Complete with an HCI `reason` (default 0x08,
    /// connection timeout: what a link drop looks like). Does nothing when no link is up.
    public mutating func disconnect(reason: UInt8 = 0x08, unixMicros: Int64) {
        guard let h = connectionHandle else { return }
        writeEvent(HCIEventBuilder.disconnectionComplete(handle: h, reason: reason), unixMicros: unixMicros)
        connectionHandle = nil
    }

    /// Writes an ATT PDU. `.sent` is host -> bracelet, `.received` bracelet -> host.
    public mutating func append(_ pdu: ATTPDU, direction: CaptureDirection, unixMicros: Int64,
                                damage: ACLFragmentDamage? = nil) {
        appendL2CAP(channel: ATTCaptureReader.attChannel, payload: pdu.encode(), direction: direction,
                    unixMicros: unixMicros, damage: damage)
    }

    /// Writes raw ATT PDU bytes (opcode first), optionally with damaged fragmentation.
    public mutating func appendATT(_ pdu: some Collection<UInt8>, direction: CaptureDirection, unixMicros: Int64,
                                   damage: ACLFragmentDamage? = nil) {
        appendL2CAP(channel: ATTCaptureReader.attChannel, payload: pdu, direction: direction, unixMicros: unixMicros,
                    damage: damage)
    }

    /// Writes one L2CAP basic frame on `channel`, fragmented into ACL packets.
    public mutating func appendL2CAP(channel: UInt16, payload: some Collection<UInt8>, direction: CaptureDirection,
                                     unixMicros: Int64, damage: ACLFragmentDamage? = nil) {
        if connectionHandle == nil { connect(unixMicros: unixMicros) }
        let handle = connectionHandle ?? 0
        var declared = payload.count
        if case .l2capLengthOffBy(let delta) = damage { declared += delta }
        let lengthField = UInt16(truncatingIfNeeded: max(0, declared))
        var frame: [UInt8] = []
        frame.reserveCapacity(payload.count + 4)
        HCIEventBuilder.appendLE(&frame, lengthField)
        HCIEventBuilder.appendLE(&frame, channel)
        frame.append(contentsOf: payload)

        var fragmentIndex = 0
        var offset = 0
        var packet: [UInt8] = []
        packet.reserveCapacity(maxACLPayload + 4)
        while offset < frame.count {
            let end = min(offset + maxACLPayload, frame.count)
            // Packet boundary flag: 0b00 first non-flushable (host -> controller on LE),
            // 0b10 first flushable (controller -> host), 0b01 continuation.
            let boundary: UInt16 = offset > 0 ? 0b01 : (direction == .sent ? 0b00 : 0b10)
            packet.removeAll(keepingCapacity: true)
            HCIEventBuilder.appendLE(&packet, handle | boundary << 12)
            HCIEventBuilder.appendLE(&packet, UInt16(end - offset))
            packet.append(contentsOf: frame[offset..<end])
            var copies = 1
            if case .dropFragment(let i) = damage, i == fragmentIndex { copies = 0 }
            if case .duplicateFragment(let i) = damage, i == fragmentIndex { copies = 2 }
            for _ in 0..<copies {
                writePreambleIfNeeded(unixMicros: unixMicros)
                btsnoop.append(.acl, direction: direction, payload: packet, unixMicros: unixMicros, adapterIndex: adapterIndex)
                if reportsCompletedPackets && direction == .sent {
                    writeEvent(HCIEventBuilder.numberOfCompletedPackets(handle: handle, count: 1), unixMicros: unixMicros)
                }
            }
            offset = end
            fragmentIndex += 1
        }
    }

    private mutating func writeEvent(_ event: [UInt8], unixMicros: Int64) {
        writePreambleIfNeeded(unixMicros: unixMicros)
        btsnoop.append(.event, direction: .received, payload: event, unixMicros: unixMicros, adapterIndex: adapterIndex)
    }

    /// 2001 files start like `btmon -w` output: New Index (type primary, bus USB, address, name) and Open Index.
    private mutating func writePreambleIfNeeded(unixMicros: Int64) {
        guard !wroteMonitorPreamble else { return }
        wroteMonitorPreamble = true
        guard btsnoop.datalink == .linuxMonitor else { return }
        var newIndex: [UInt8] = [0x00, 0x01]
        newIndex.append(contentsOf: hostAddress.reversed())
        newIndex.append(contentsOf: Array("hci\(adapterIndex)".utf8.prefix(7)))
        while newIndex.count < 16 { newIndex.append(0) }
        btsnoop.appendMonitorRecord(opcode: MonitorOpcode.newIndex, adapterIndex: adapterIndex, payload: newIndex,
                                    unixMicros: unixMicros)
        btsnoop.appendMonitorRecord(opcode: MonitorOpcode.openIndex, adapterIndex: adapterIndex, payload: [UInt8](),
                                    unixMicros: unixMicros)
    }
}
