/// The kind of packets a btsnoop file holds (the "datalink type" in its header).
public enum BtsnoopDatalink: UInt32, Sendable, CaseIterable, CustomStringConvertible {
    /// 1001: un-encapsulated HCI. Each record is one HCI packet without a type byte; the record
    /// flags say whether it is a command/event and its direction. Readable; also writable.
    case hciUnencapsulated = 1001
    /// 1002: HCI UART (H4). Each record starts with the H4 packet type byte (0x01 command, 0x02 ACL,
    /// 0x03 SCO, 0x04 event, 0x05 ISO). This is what Android's HCI snoop log writes.
    case hciUART = 1002
    /// 2001: Linux Bluetooth monitor. The record flags hold `adapter index << 16 | opcode`.
    /// This is what `btmon -w` writes.
    case linuxMonitor = 2001

    /// Number and name, e.g. `1002 (HCI UART/H4)`.
    public var description: String {
        switch self {
        case .hciUnencapsulated: "1001 (un-encapsulated HCI)"
        case .hciUART: "1002 (HCI UART/H4)"
        case .linuxMonitor: "2001 (Linux monitor)"
        }
    }
}
