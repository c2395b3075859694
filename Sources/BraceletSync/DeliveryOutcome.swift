/// What a sink answered for one outbox entry.
///
/// The forwarder records `delivered` and `alreadyHad` as delivered, retries `transientFailure` with
/// backoff for as long as it takes, pauses the whole sink on `configurationFailure`, and moves
/// `permanentFailure` straight to the dead letters.
public enum DeliveryOutcome: Sendable, Equatable {
    /// The sink accepted the entry now (HTTP 2xx, or a line written and fsynced).
    case delivered(httpStatus: Int?)
    /// The sink already had this key from an earlier attempt (HTTP 409).
    case alreadyHad(httpStatus: Int?)
    /// The receiver refused this entry and will refuse it again (HTTP 4xx other than 408, 409, 429
    /// and the configuration statuses): the entry is wrong, not the sink.
    case permanentFailure(reason: String, httpStatus: Int?)
    /// The sink as configured cannot take anything (HTTP 401, 403, 404, 405, 407; a target file that
    /// cannot be written): every entry would fail the same way until someone fixes the setup, so the
    /// sink pauses and no entry is charged with it.
    case configurationFailure(reason: String, httpStatus: Int?)
    /// Worth retrying later: HTTP 408, 429, 5xx, network error, timeout, garbage answer, full disk.
    case transientFailure(reason: String, httpStatus: Int?)

    /// The HTTP status the sink saw, when it speaks HTTP.
    public var httpStatus: Int? {
        switch self {
        case let .delivered(status), let .alreadyHad(status): status
        case let .permanentFailure(_, status), let .configurationFailure(_, status), let .transientFailure(_, status): status
        }
    }

    /// A short word for logs and the delivery log: `delivered`, `already_had`, `permanent_failure`,
    /// `configuration_failure`, `transient_failure`.
    public var label: String {
        switch self {
        case .delivered: "delivered"
        case .alreadyHad: "already_had"
        case .permanentFailure: "permanent_failure"
        case .configurationFailure: "configuration_failure"
        case .transientFailure: "transient_failure"
        }
    }

    /// Whether the failure is the sink's rather than the entry's: a transient failure without an
    /// answer (no connection, no answer in time, a full disk). Every other entry would wait the same
    /// way, so a pass ends at it.
    public var isSinkWide: Bool {
        if case .transientFailure(_, nil) = self { return true }
        return false
    }

    /// The failure reason, `nil` for successes.
    public var reason: String? {
        switch self {
        case .delivered, .alreadyHad: nil
        case let .permanentFailure(reason, _), let .configurationFailure(reason, _), let .transientFailure(reason, _): reason
        }
    }
}
