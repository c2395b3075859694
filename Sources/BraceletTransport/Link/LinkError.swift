import Glibc

/// A failure of the sequenced-packet link under ATT (an L2CAP socket or a Unix socket).
public enum LinkError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The peer closed the link or it dropped (EOF, ECONNRESET, EPIPE, ENOTCONN).
    case closed
    /// A system call failed.
    case system(operation: String, errno: Int32)
    /// A `unix:PATH` (or other) link address that cannot be used.
    case invalidAddress(String)

    /// What went wrong and what to do.
    public var description: String {
        switch self {
        case .closed:
            "the link to the bracelet dropped (peer closed or out of range); reconnect and resume"
        case let .system(operation, code):
            "\(operation) failed: \(String(cString: strerror(code))) (errno \(code)); check that the peer is running and retry"
        case .invalidAddress(let text):
            "'\(text)' is not a usable link address; use unix:/path/to/socket for a simulated bracelet"
        }
    }

    /// Classifies errno after a send or receive.
    static func fromErrno(_ code: Int32, operation: String) -> LinkError {
        switch code {
        case ECONNRESET, EPIPE, ENOTCONN, ESHUTDOWN, ECONNABORTED, EHOSTDOWN, EHOSTUNREACH: .closed
        default: .system(operation: operation, errno: code)
        }
    }
}
