import BraceletTransport

/// One ATT PDU found in a capture, with when, which way and on which LE connection it travelled.
public struct ATTEvent: Sendable {
    /// Unix time in microseconds of the record that completed the PDU (its last ACL fragment).
    public var timestampMicros: Int64
    /// `.sent`: from the capturing host to the bracelet; `.received`: from the bracelet.
    public var direction: CaptureDirection
    /// The HCI connection handle (12 bits) of the LE link.
    public var connectionHandle: UInt16
    /// The controller index (2001 files); 0 for 1001/1002 files.
    public var adapterIndex: UInt16
    /// The record that completed the PDU.
    public var position: CapturePosition
    /// The ATT PDU bytes, opcode first. A slice of the file buffer or of a reassembly buffer; copy it
    /// (`Array(pdu)`) if you keep it for long.
    public var pdu: ArraySlice<UInt8>

    /// Describes an ATT PDU in a capture.
    public init(timestampMicros: Int64, direction: CaptureDirection, connectionHandle: UInt16, adapterIndex: UInt16,
                position: CapturePosition, pdu: ArraySlice<UInt8>) {
        self.timestampMicros = timestampMicros
        self.direction = direction
        self.connectionHandle = connectionHandle
        self.adapterIndex = adapterIndex
        self.position = position
        self.pdu = pdu
    }

    /// The opcode (first byte); `nil` only for an empty PDU, which the reader reports as a fault instead.
    public var opcode: ATTOpcode? { pdu.first.map { ATTOpcode(rawValue: $0) } }

    /// For a Handle Value Notification or Indication: the attribute handle and the value, as a slice
    /// of ``pdu`` (no copy; the replay hot path reads data packets through this). `nil` for other
    /// opcodes or a PDU too short to hold a handle.
    public var handleValue: (handle: UInt16, value: ArraySlice<UInt8>)? {
        guard pdu.count >= 3 else { return nil }
        let s = pdu.startIndex
        guard pdu[s] == ATTOpcode.handleValueNotification.rawValue || pdu[s] == ATTOpcode.handleValueIndication.rawValue
        else { return nil }
        return (UInt16(pdu[s + 1]) | UInt16(pdu[s + 2]) << 8, pdu[(s + 3)...])
    }

    /// For a Handle Value Notification or Indication: the attribute handle (``handleValue`` without
    /// the value, so without a slice to count references of: the replay hot path checks every PDU
    /// with it). `nil` for other opcodes or a PDU too short to hold a handle.
    @inlinable
    public var notifiedHandle: UInt16? {
        guard pdu.count >= 3 else { return nil }
        let s = pdu.startIndex
        guard pdu[s] == ATTOpcode.handleValueNotification.rawValue || pdu[s] == ATTOpcode.handleValueIndication.rawValue
        else { return nil }
        return UInt16(pdu[s + 1]) | UInt16(pdu[s + 2]) << 8
    }

    /// Decodes the PDU with the ATT codec.
    public func decode() throws(ATTPDUError) -> ATTPDU { try ATTPDU.parse(pdu) }
}

/// An LE link coming up or going down, from the HCI events in a capture.
public struct LinkEvent: Sendable, Hashable {
    /// Unix time in microseconds of the event.
    public var timestampMicros: Int64
    /// The HCI connection handle.
    public var connectionHandle: UInt16
    /// The controller index (2001 files); 0 otherwise.
    public var adapterIndex: UInt16
    /// The record holding the event.
    public var position: CapturePosition
    /// For a connection: the peer's address as text (`AA:BB:CC:DD:EE:FF`); `nil` for a disconnection.
    public var peerAddress: String?
    /// For a disconnection: the HCI reason code (e.g. 0x08 connection timeout, 0x13 remote user
    /// terminated); `nil` for a connection.
    public var reason: UInt8?

    /// Describes a link event.
    public init(timestampMicros: Int64, connectionHandle: UInt16, adapterIndex: UInt16, position: CapturePosition,
                peerAddress: String?, reason: UInt8?) {
        self.timestampMicros = timestampMicros
        self.connectionHandle = connectionHandle
        self.adapterIndex = adapterIndex
        self.position = position
        self.peerAddress = peerAddress
        self.reason = reason
    }
}

/// What ``ATTCaptureReader`` yields, in capture order.
public enum CaptureEvent: Sendable {
    /// An ATT PDU (L2CAP CID 0x0004).
    case att(ATTEvent)
    /// An LE link came up (LE Connection Complete or LE Enhanced Connection Complete, status 0).
    case connected(LinkEvent)
    /// A link went down (Disconnection Complete, status 0).
    case disconnected(LinkEvent)
    /// Something in the capture was damaged. Reading continues after it unless it is a
    /// ``CaptureFault/file(_:)`` fault; good packets before and after are delivered.
    case fault(CaptureFault)

    /// The ATT event, if this is one.
    public var att: ATTEvent? {
        if case .att(let e) = self { return e }
        return nil
    }
}
