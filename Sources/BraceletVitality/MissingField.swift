/// A metric that an adapter left `nil`, and why (which inputs were absent or unusable).
///
/// Adapters never turn a missing input into 0; they log it here instead so a reader can see what
/// the source did not provide.
public struct MissingField: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The metric that is nil.
    public let field: VitalityField
    /// Why it is nil, naming the input fields that were looked at.
    public let reason: String

    /// Creates a log entry.
    public init(field: VitalityField, reason: String) {
        self.field = field
        self.reason = reason
    }

    /// `field: reason`.
    public var description: String { "\(field.rawValue): \(reason)" }
}
