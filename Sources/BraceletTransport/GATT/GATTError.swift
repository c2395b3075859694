/// Why a GATT procedure failed.
public enum GATTError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The ATT layer failed (link drop, timeout, ATT error response by name, malformed response).
    case att(ATTBearerError)
    /// A characteristic the procedure needs was not discovered.
    case characteristicNotFound(String)
    /// The characteristic has no Client Characteristic Configuration descriptor.
    case noCCCD(String)
    /// The server answered with a PDU of the wrong kind.
    case unexpectedResponse(request: ATTOpcode, response: ATTOpcode)

    /// What went wrong and what to do.
    public var description: String {
        switch self {
        case .att(let error): error.description
        case .characteristicNotFound(let name):
            "the device has no \(name) characteristic; check that it is a bracelet (bracelet scan) and that its firmware is supported"
        case .noCCCD(let name):
            "\(name) has no Client Characteristic Configuration descriptor, so notifications cannot be enabled; rediscover or report the firmware"
        case let .unexpectedResponse(request, response):
            "\(request) was answered with \(response); the peer does not follow ATT; disconnect and retry"
        }
    }

    /// Whether this is a link drop or timeout (worth reconnecting).
    public var isLinkFailure: Bool {
        switch self {
        case .att(.linkClosed), .att(.requestTimedOut), .att(.socket): true
        default: false
        }
    }
}
