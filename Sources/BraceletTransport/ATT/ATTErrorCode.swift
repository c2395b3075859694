import BraceletProtocol

/// The error code carried by an ATT Error Response (Bluetooth Core spec, Vol 3, Part F, 3.4.1.1,
/// and the Core Specification Supplement, Part B, for the common profile codes 0xE0-0xFF).
///
/// A struct so that application error codes (0x80-0x9F) and codes newer than this table keep their
/// raw value.
public struct ATTErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The error code byte as sent on the wire.
    public var rawValue: UInt8

    /// Wraps an error code byte. Every byte value is accepted.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// 0x01: the attribute handle given was not valid on this server.
    public static let invalidHandle = ATTErrorCode(rawValue: 0x01)
    /// 0x02: the attribute cannot be read.
    public static let readNotPermitted = ATTErrorCode(rawValue: 0x02)
    /// 0x03: the attribute cannot be written.
    public static let writeNotPermitted = ATTErrorCode(rawValue: 0x03)
    /// 0x04: the attribute PDU was invalid.
    public static let invalidPDU = ATTErrorCode(rawValue: 0x04)
    /// 0x05: the attribute requires authentication before it can be read or written.
    public static let insufficientAuthentication = ATTErrorCode(rawValue: 0x05)
    /// 0x06: the server does not support the request.
    public static let requestNotSupported = ATTErrorCode(rawValue: 0x06)
    /// 0x07: the offset specified was past the end of the attribute.
    public static let invalidOffset = ATTErrorCode(rawValue: 0x07)
    /// 0x08: the attribute requires authorization before it can be read or written.
    public static let insufficientAuthorization = ATTErrorCode(rawValue: 0x08)
    /// 0x09: too many prepare writes have been queued.
    public static let prepareQueueFull = ATTErrorCode(rawValue: 0x09)
    /// 0x0A: no attribute found within the given handle range.
    public static let attributeNotFound = ATTErrorCode(rawValue: 0x0A)
    /// 0x0B: the attribute cannot be read using the Read Blob Request.
    public static let attributeNotLong = ATTErrorCode(rawValue: 0x0B)
    /// 0x0C: the encryption key size used for encrypting this link is too short.
    public static let encryptionKeySizeTooShort = ATTErrorCode(rawValue: 0x0C)
    /// 0x0D: the attribute value length is invalid for the operation.
    public static let invalidAttributeValueLength = ATTErrorCode(rawValue: 0x0D)
    /// 0x0E: the request met an unlikely error and could not be completed.
    public static let unlikelyError = ATTErrorCode(rawValue: 0x0E)
    /// 0x0F: the attribute requires encryption before it can be read or written.
    public static let insufficientEncryption = ATTErrorCode(rawValue: 0x0F)
    /// 0x10: the attribute type is not a supported grouping attribute.
    public static let unsupportedGroupType = ATTErrorCode(rawValue: 0x10)
    /// 0x11: insufficient resources to complete the request.
    public static let insufficientResources = ATTErrorCode(rawValue: 0x11)
    /// 0x12: the server requests the client to rediscover the database.
    public static let databaseOutOfSync = ATTErrorCode(rawValue: 0x12)
    /// 0x13: the attribute parameter value was not allowed.
    public static let valueNotAllowed = ATTErrorCode(rawValue: 0x13)
    /// 0xFC: a write request was rejected (common profile error).
    public static let writeRequestRejected = ATTErrorCode(rawValue: 0xFC)
    /// 0xFD: the Client Characteristic Configuration Descriptor is improperly configured.
    public static let cccdImproperlyConfigured = ATTErrorCode(rawValue: 0xFD)
    /// 0xFE: a profile or service request cannot be serviced because one is already in progress.
    public static let procedureAlreadyInProgress = ATTErrorCode(rawValue: 0xFE)
    /// 0xFF: the attribute value is out of range.
    public static let outOfRange = ATTErrorCode(rawValue: 0xFF)

    /// True for 0x80-0x9F, the range a higher-layer specification (here: the bracelet protocol) defines.
    public var isApplicationError: Bool { (0x80...0x9F).contains(rawValue) }

    /// True when the request can succeed after the link is secured (pairing or encryption), i.e.
    /// insufficient authentication, authorization, encryption or encryption key size.
    public var needsSecurity: Bool {
        self == .insufficientAuthentication || self == .insufficientAuthorization
            || self == .insufficientEncryption || self == .encryptionKeySizeTooShort
    }

    /// True when retrying the same request later may succeed without any change by the client.
    public var isTransient: Bool {
        self == .prepareQueueFull || self == .insufficientResources || self == .procedureAlreadyInProgress
            || self == .unlikelyError
    }

    /// The spec's name, or `nil` for a code the spec does not define.
    public var name: String? {
        switch rawValue {
        case 0x01: "Invalid Handle"
        case 0x02: "Read Not Permitted"
        case 0x03: "Write Not Permitted"
        case 0x04: "Invalid PDU"
        case 0x05: "Insufficient Authentication"
        case 0x06: "Request Not Supported"
        case 0x07: "Invalid Offset"
        case 0x08: "Insufficient Authorization"
        case 0x09: "Prepare Queue Full"
        case 0x0A: "Attribute Not Found"
        case 0x0B: "Attribute Not Long"
        case 0x0C: "Encryption Key Size Too Short"
        case 0x0D: "Invalid Attribute Value Length"
        case 0x0E: "Unlikely Error"
        case 0x0F: "Insufficient Encryption"
        case 0x10: "Unsupported Group Type"
        case 0x11: "Insufficient Resources"
        case 0x12: "Database Out Of Sync"
        case 0x13: "Value Not Allowed"
        case 0x80...0x9F: "Application Error"
        case 0xFC: "Write Request Rejected"
        case 0xFD: "Client Characteristic Configuration Descriptor Improperly Configured"
        case 0xFE: "Procedure Already In Progress"
        case 0xFF: "Out Of Range"
        default: nil
        }
    }

    /// What a client should do when it receives this code.
    public var remedy: String {
        if needsSecurity { return "pair with the bracelet (or raise the link's security level) and retry" }
        if isTransient { return "wait briefly and retry the same request" }
        if isApplicationError { return "look the code up in the bracelet protocol specification" }
        switch self {
        case .invalidHandle, .attributeNotFound, .databaseOutOfSync:
            return "rediscover the bracelet's services and characteristics, then retry with the new handles"
        case .requestNotSupported, .unsupportedGroupType, .attributeNotLong:
            return "use a different procedure; the server does not support this one"
        case .cccdImproperlyConfigured:
            return "enable notifications or indications on the characteristic's CCCD first"
        default:
            return "check the request's handle, offset and value against the characteristic's definition"
        }
    }

    /// Name and hex value, e.g. `Insufficient Encryption (0x0F)`.
    public var description: String {
        "\(name ?? "Reserved error code") (0x\(hexString(rawValue, uppercase: true)))"
    }
}
