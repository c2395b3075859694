/// Why a command frame, response or data packet could not be decoded.
public enum FrameError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The frame has the wrong length for its code.
    case wrongLength(code: UInt8, expected: Int, actual: Int)
    /// The frame is empty.
    case empty
    /// The CRC at the end of the frame does not match its content.
    case crcMismatch(code: UInt8, expected: UInt32, found: UInt32)
    /// The code is not one this protocol version defines.
    case unknownCode(UInt8)
    /// A field holds a value the protocol does not allow.
    case invalidField(name: String, value: Int)
    /// A data packet's length does not match its length field (or is below the minimum).
    case packetLength(expected: Int, actual: Int)
    /// A data packet failed its CRC-16.
    case packetCRCMismatch(computed: UInt16, found: UInt16)
    /// A data packet's header holds a value the protocol does not allow (a payload length above 158,
    /// a reserved flag bit set), although its CRC matched.
    case packetField(name: String, value: Int)

    public var description: String {
        switch self {
        case let .wrongLength(code, expected, actual):
            "frame 0x\(hexString(code)) has \(actual) bytes, expected \(expected); drop it and re-request"
        case .empty:
            "empty frame; drop it and re-request"
        case let .crcMismatch(code, expected, found):
            "frame 0x\(hexString(code)) failed its CRC (computed 0x\(hexString(expected)), frame says 0x\(hexString(found))); treat it as lost and re-request"
        case let .unknownCode(code):
            "unknown frame code 0x\(hexString(code)); the peer may run a newer protocol version"
        case let .invalidField(name, value):
            "field \(name) has the invalid value \(value)"
        case let .packetLength(expected, actual):
            "data packet has \(actual) bytes, its header says \(expected); treat it as lost and re-request its range"
        case let .packetCRCMismatch(computed, found):
            "data packet failed its CRC-16 (computed 0x\(hexString(computed)), packet says 0x\(hexString(found))); treat it as lost and re-request its range"
        case let .packetField(name, value):
            "data packet has \(name) \(value), which the protocol does not allow; treat it as lost and re-request its range"
        }
    }
}
