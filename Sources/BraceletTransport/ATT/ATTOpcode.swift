import BraceletProtocol

/// The first byte of every ATT PDU: which request, response, command, notification or
/// indication the PDU is (Bluetooth Core spec, Vol 3, Part F, 3.4.8).
///
/// A struct rather than an enum so that any byte found in a capture can be represented: opcodes the
/// codec does not model (prepare write, read blob, signed write, ...) keep their raw value.
public struct ATTOpcode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The opcode byte as sent on the wire.
    public var rawValue: UInt8

    /// Wraps an opcode byte. Every byte value is accepted.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Error Response (server -> client), 0x01.
    public static let errorResponse = ATTOpcode(rawValue: 0x01)
    /// Exchange MTU Request (client -> server), 0x02.
    public static let exchangeMTURequest = ATTOpcode(rawValue: 0x02)
    /// Exchange MTU Response (server -> client), 0x03.
    public static let exchangeMTUResponse = ATTOpcode(rawValue: 0x03)
    /// Find Information Request, 0x04.
    public static let findInformationRequest = ATTOpcode(rawValue: 0x04)
    /// Find Information Response, 0x05.
    public static let findInformationResponse = ATTOpcode(rawValue: 0x05)
    /// Find By Type Value Request, 0x06 (not modelled by ``ATTPDU``; kept as ``ATTPDU/other(opcode:parameters:)``).
    public static let findByTypeValueRequest = ATTOpcode(rawValue: 0x06)
    /// Find By Type Value Response, 0x07 (not modelled by ``ATTPDU``).
    public static let findByTypeValueResponse = ATTOpcode(rawValue: 0x07)
    /// Read By Type Request, 0x08.
    public static let readByTypeRequest = ATTOpcode(rawValue: 0x08)
    /// Read By Type Response, 0x09.
    public static let readByTypeResponse = ATTOpcode(rawValue: 0x09)
    /// Read Request, 0x0A.
    public static let readRequest = ATTOpcode(rawValue: 0x0A)
    /// Read Response, 0x0B.
    public static let readResponse = ATTOpcode(rawValue: 0x0B)
    /// Read Blob Request, 0x0C (not modelled by ``ATTPDU``).
    public static let readBlobRequest = ATTOpcode(rawValue: 0x0C)
    /// Read Blob Response, 0x0D (not modelled by ``ATTPDU``).
    public static let readBlobResponse = ATTOpcode(rawValue: 0x0D)
    /// Read By Group Type Request, 0x10.
    public static let readByGroupTypeRequest = ATTOpcode(rawValue: 0x10)
    /// Read By Group Type Response, 0x11.
    public static let readByGroupTypeResponse = ATTOpcode(rawValue: 0x11)
    /// Write Request, 0x12.
    public static let writeRequest = ATTOpcode(rawValue: 0x12)
    /// Write Response, 0x13.
    public static let writeResponse = ATTOpcode(rawValue: 0x13)
    /// Prepare Write Request, 0x16 (not modelled by ``ATTPDU``).
    public static let prepareWriteRequest = ATTOpcode(rawValue: 0x16)
    /// Prepare Write Response, 0x17 (not modelled by ``ATTPDU``).
    public static let prepareWriteResponse = ATTOpcode(rawValue: 0x17)
    /// Execute Write Request, 0x18 (not modelled by ``ATTPDU``).
    public static let executeWriteRequest = ATTOpcode(rawValue: 0x18)
    /// Execute Write Response, 0x19 (not modelled by ``ATTPDU``).
    public static let executeWriteResponse = ATTOpcode(rawValue: 0x19)
    /// Handle Value Notification (server -> client, unacknowledged), 0x1B.
    public static let handleValueNotification = ATTOpcode(rawValue: 0x1B)
    /// Handle Value Indication (server -> client, must be confirmed), 0x1D.
    public static let handleValueIndication = ATTOpcode(rawValue: 0x1D)
    /// Handle Value Confirmation (client -> server), 0x1E.
    public static let handleValueConfirmation = ATTOpcode(rawValue: 0x1E)
    /// Write Command (client -> server, unacknowledged), 0x52.
    public static let writeCommand = ATTOpcode(rawValue: 0x52)
    /// Signed Write Command, 0xD2 (not modelled by ``ATTPDU``).
    public static let signedWriteCommand = ATTOpcode(rawValue: 0xD2)

    /// Bit 6 of the opcode: set for commands, which get no response.
    public var isCommand: Bool { rawValue & 0x40 != 0 }

    /// Bit 7 of the opcode: set when a 12-byte authentication signature ends the PDU.
    public var hasAuthenticationSignature: Bool { rawValue & 0x80 != 0 }

    /// What role a PDU with this opcode plays in the protocol.
    public enum Kind: Sendable, Hashable {
        /// Client -> server, answered by a response or an Error Response.
        case request
        /// Server -> client, answering a request.
        case response
        /// Client -> server, no answer.
        case command
        /// Server -> client, no answer.
        case notification
        /// Server -> client, answered by a confirmation.
        case indication
        /// Client -> server, answering an indication.
        case confirmation
    }

    /// The role of this opcode, or `nil` for an opcode the Core spec does not define.
    public var kind: Kind? {
        switch rawValue {
        case 0x01, 0x03, 0x05, 0x07, 0x09, 0x0B, 0x0D, 0x0F, 0x11, 0x13, 0x17, 0x19, 0x21: .response
        case 0x02, 0x04, 0x06, 0x08, 0x0A, 0x0C, 0x0E, 0x10, 0x12, 0x16, 0x18, 0x20: .request
        case 0x52, 0xD2: .command
        case 0x1B, 0x23: .notification
        case 0x1D: .indication
        case 0x1E: .confirmation
        default: nil
        }
    }

    /// For a request, the opcode of its successful response (an Error Response may come instead);
    /// for an indication, the confirmation. `nil` otherwise.
    public var answerOpcode: ATTOpcode? {
        switch kind {
        case .request: ATTOpcode(rawValue: rawValue + 1)
        case .indication: .handleValueConfirmation
        default: nil
        }
    }

    /// The spec's name of the opcode, or `nil` when the byte is not an opcode the Core spec defines.
    public var name: String? {
        switch rawValue {
        case 0x01: "Error Response"
        case 0x02: "Exchange MTU Request"
        case 0x03: "Exchange MTU Response"
        case 0x04: "Find Information Request"
        case 0x05: "Find Information Response"
        case 0x06: "Find By Type Value Request"
        case 0x07: "Find By Type Value Response"
        case 0x08: "Read By Type Request"
        case 0x09: "Read By Type Response"
        case 0x0A: "Read Request"
        case 0x0B: "Read Response"
        case 0x0C: "Read Blob Request"
        case 0x0D: "Read Blob Response"
        case 0x0E: "Read Multiple Request"
        case 0x0F: "Read Multiple Response"
        case 0x10: "Read By Group Type Request"
        case 0x11: "Read By Group Type Response"
        case 0x12: "Write Request"
        case 0x13: "Write Response"
        case 0x16: "Prepare Write Request"
        case 0x17: "Prepare Write Response"
        case 0x18: "Execute Write Request"
        case 0x19: "Execute Write Response"
        case 0x1B: "Handle Value Notification"
        case 0x1D: "Handle Value Indication"
        case 0x1E: "Handle Value Confirmation"
        case 0x20: "Read Multiple Variable Request"
        case 0x21: "Read Multiple Variable Response"
        case 0x23: "Multiple Handle Value Notification"
        case 0x52: "Write Command"
        case 0xD2: "Signed Write Command"
        default: nil
        }
    }

    /// Name and hex value, e.g. `Handle Value Notification (0x1B)`.
    public var description: String {
        "\(name ?? "Unknown opcode") (0x\(hexString(rawValue, uppercase: true)))"
    }
}

