/// The kind of an HCI packet; the raw value is its H4 (UART) packet type byte.
public enum HCIPacketType: UInt8, Sendable, CaseIterable {
    /// Host -> controller command.
    case command = 0x01
    /// ACL data (carries L2CAP, hence ATT), either direction.
    case acl = 0x02
    /// SCO (synchronous voice) data.
    case sco = 0x03
    /// Controller -> host event.
    case event = 0x04
    /// ISO (isochronous) data.
    case iso = 0x05
}

/// Which way a packet travelled, seen from the capturing host (the phone or computer that talks to
/// the bracelet).
public enum CaptureDirection: Sendable, Hashable, CustomStringConvertible {
    /// From the host to its controller, i.e. towards the bracelet (commands, ACL TX).
    case sent
    /// From the controller to the host, i.e. from the bracelet (events, ACL RX).
    case received

    /// `sent` or `received`.
    public var description: String { self == .sent ? "sent" : "received" }
}

/// Opcodes of the Linux monitor datalink (2001), kept in the low 16 bits of each record's flags
/// (BlueZ src/shared/btsnoop.h).
public enum MonitorOpcode {
    /// A controller was registered; payload: type, bus, address (6, little-endian), name (8).
    public static let newIndex: UInt16 = 0
    /// A controller was removed.
    public static let deleteIndex: UInt16 = 1
    /// HCI command sent.
    public static let command: UInt16 = 2
    /// HCI event received.
    public static let event: UInt16 = 3
    /// ACL data sent (host -> controller).
    public static let aclSent: UInt16 = 4
    /// ACL data received (controller -> host).
    public static let aclReceived: UInt16 = 5
    /// SCO data sent.
    public static let scoSent: UInt16 = 6
    /// SCO data received.
    public static let scoReceived: UInt16 = 7
    /// A controller was opened (brought up).
    public static let openIndex: UInt16 = 8
    /// A controller was closed.
    public static let closeIndex: UInt16 = 9
    /// A text note from the system.
    public static let systemNote: UInt16 = 12
    /// ISO data sent.
    public static let isoSent: UInt16 = 18
    /// ISO data received.
    public static let isoReceived: UInt16 = 19
}
