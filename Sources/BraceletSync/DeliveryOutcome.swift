/// What a sink answered for one outbox entry.
///
/// The forwarder records `delivered` and `alreadyHad` as delivered, retries `transientFailure` with
/// backoff, and moves `permanentFailure` straight to the dead letters.
public enum DeliveryOutcome: Sendable, Equatable {
    /// The sink accepted the entry now (HTTP 2xx, or a line written and fsynced).
    case delivered(httpStatus: Int?)
    /// The sink already had this key from an earlier attempt (HTTP 409).
    case alreadyHad(httpStatus: Int?)
    /// The sink refused the entry and will refuse it again (HTTP 4xx other than 409).
    case permanentFailure(reason: String, httpStatus: Int?)
    /// Worth retrying later: HTTP 5xx, network error, timeout, garbage answer, full disk.
    case transientFailure(reason: String, httpStatus: Int?)

    /// The HTTP status the sink saw, when it speaks HTTP.
    public var httpStatus: Int? {
        switch self {
        case let .delivered(status), let .alreadyHad(status): status
        case let .permanentFailure(_, status), let .transientFailure(_, status): status
        }
    }

    /// A short word for logs and the delivery log: `delivered`, `already_had`, `permanent_failure`,
    /// `transient_failure`.
    public var label: String {
        switch self {
        case .delivered: "delivered"
        case .alreadyHad: "already_had"
        case .permanentFailure: "permanent_failure"
        case .transientFailure: "transient_failure"
        }
    }

    /// The failure reason, `nil` for successes.
    public var reason: String? {
        switch self {
        case .delivered, .alreadyHad: nil
        case let .permanentFailure(reason, _), let .transientFailure(reason, _): reason
        }
    }
}
