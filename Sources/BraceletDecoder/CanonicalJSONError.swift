/// Why the canonical JSON writer could not write a value. The message names the value (the `what`
/// its caller gave), says what was wrong and what to do; modules above wrap it in their own error
/// where they promise one (the store reports it as `StoreError.invalidInput`).
public enum CanonicalJSONError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A value has no JSON form: a number that is NaN or infinite, or an `Encodable` conformance that
    /// threw.
    case notEncodable(String)
    /// JSON handed over as bytes is not one valid JSON object or array.
    case invalidJSON(String)

    /// What went wrong and what to do.
    public var description: String {
        switch self {
        case let .notEncodable(message), let .invalidJSON(message): message
        }
    }
}
