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
    /// The peer refused a request with `refusal` (insufficient encryption or authentication) and
    /// raising the link's security failed: `reason` says how; `linkFailure` when the link dropped.
    case securityNotRaised(refusal: ATTErrorCode, reason: String, linkFailure: Bool)

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
        case let .securityNotRaised(refusal, reason, _):
            "the device answered \(refusal): \(reason)"
        }
    }

    /// The refusal for insufficient security (encryption, authentication, ...) that ended the
    /// procedure, whether or not raising the link was tried; `nil` for other failures.
    public var securityRefusal: ATTErrorCode? {
        switch self {
        case .att(.attError(_, _, let code)) where code.needsSecurity: code
        case .securityNotRaised(let code, _, _): code
        default: nil
        }
    }

    /// Whether this is a link drop or timeout (worth reconnecting).
    public var isLinkFailure: Bool {
        switch self {
        case .att(.linkClosed), .att(.requestTimedOut), .att(.socket): true
        case .securityNotRaised(_, _, let linkFailure): linkFailure
        default: false
        }
    }
}
