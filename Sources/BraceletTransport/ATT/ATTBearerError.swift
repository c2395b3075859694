import BraceletProtocol

/// Why an ATT request over a bearer did not produce its response.
public enum ATTBearerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The link dropped or the peer closed it.
    case linkClosed
    /// No response arrived within the timeout (ATT's transaction timeout is 30 s).
    case requestTimedOut(request: ATTOpcode, milliseconds: Int)
    /// The server answered with an ATT Error Response.
    case attError(request: ATTOpcode, handle: UInt16, code: ATTErrorCode)
    /// The response to the request could not be decoded.
    case malformedResponse(request: ATTOpcode, reason: String)
    /// The PDU given to ``ATTBearer/request(_:timeout:)`` is not a request (or to
    /// ``ATTBearer/send(_:)`` is not a command or confirmation).
    case notARequest(ATTOpcode)
    /// The socket failed in a way other than a drop.
    case socket(LinkError)

    /// What went wrong and what to do.
    public var description: String {
        switch self {
        case .linkClosed:
            "the ATT link dropped; reconnect (the session resumes from the last byte it holds)"
        case let .requestTimedOut(request, ms):
            "no response to \(request) within \(ms) ms; the link is unusable after an ATT timeout: disconnect and reconnect"
        case let .attError(request, handle, code):
            "\(request) on handle 0x\(hexString(handle, uppercase: true)) failed with \(code): \(code.remedy)"
        case let .malformedResponse(request, reason):
            "the response to \(request) is malformed (\(reason)); retry the request, and if it repeats check the peer's firmware"
        case .notARequest(let opcode):
            "\(opcode) cannot be sent this way; use request() for requests and send() for commands and confirmations"
        case .socket(let error):
            "link failure: \(error)"
        }
    }
}

/// Something odd the bearer saw and survived: reported, not thrown.
public enum ATTBearerDiagnostic: Sendable, Equatable, CustomStringConvertible {
    /// A frame that is not a valid ATT PDU.
    case malformedPDU(bytes: Int, reason: String)
    /// A frame longer than the negotiated MTU (it was dropped).
    case oversizedFrame(length: Int, mtu: Int)
    /// A response that matches no outstanding request.
    case unexpectedResponse(ATTOpcode)
    /// The peer proposed an MTU outside 23 ... 517; the usable value is clamped.
    case mtuOutOfRange(proposed: Int, used: Int)
    /// Notifications were dropped because nobody consumed them.
    case notificationQueueOverflow(dropped: Int)
    /// The peer sent a request; the bearer answered it.
    case peerRequest(ATTOpcode)

    /// What was seen.
    public var description: String {
        switch self {
        case let .malformedPDU(bytes, reason): "ignored a malformed ATT PDU of \(bytes) bytes: \(reason)"
        case let .oversizedFrame(length, mtu): "dropped a \(length)-byte frame, larger than the ATT MTU of \(mtu)"
        case .unexpectedResponse(let op): "ignored \(op): no request of that kind was outstanding"
        case let .mtuOutOfRange(proposed, used): "peer proposed ATT MTU \(proposed), outside 23...517; using \(used)"
        case .notificationQueueOverflow(let n): "dropped \(n) notifications nobody read"
        case .peerRequest(let op): "answered a \(op) from the peer"
        }
    }
}
