/// How many days of a window have a value for one metric.
public struct FieldCoverage: Sendable, Hashable, Codable {
    /// The metric.
    public let field: VitalityField
    /// Days in the window with a value (for HRV: days with the HRV type that was averaged).
    public let daysWithData: Int
    /// Days in the window (its length, including days without any data).
    public let daysInWindow: Int

    /// Creates a coverage entry.
    public init(field: VitalityField, daysWithData: Int, daysInWindow: Int) {
        self.field = field
        self.daysWithData = daysWithData
        self.daysInWindow = daysInWindow
    }

    /// `daysWithData / daysInWindow`, 0-1.
    public var fraction: Double { daysInWindow > 0 ? Double(daysWithData) / Double(daysInWindow) : 0 }

    enum CodingKeys: String, CodingKey { case field, daysWithData, daysInWindow, fraction }

    /// Creates from JSON (the `fraction` key is recomputed, not read).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        field = try c.decode(VitalityField.self, forKey: .field)
        daysWithData = try c.decode(Int.self, forKey: .daysWithData)
        daysInWindow = try c.decode(Int.self, forKey: .daysInWindow)
    }

    /// Writes the counts and the fraction.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(field, forKey: .field)
        try c.encode(daysWithData, forKey: .daysWithData)
        try c.encode(daysInWindow, forKey: .daysInWindow)
        try c.encode((fraction * 1000).rounded() / 1000, forKey: .fraction)
    }
}
