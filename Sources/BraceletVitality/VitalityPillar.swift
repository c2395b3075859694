/// The three groups a vitality score is made of.
public enum VitalityPillar: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// Sleep duration, restorative sleep, efficiency and time awake in bed.
    case sleep
    /// Movement minutes, steps and active energy.
    case movement
    /// HRV, resting heart rate and breathing rate.
    case stressRecovery

    /// A human label for tables.
    public var label: String {
        switch self {
        case .sleep: "Sleep"
        case .movement: "Movement"
        case .stressRecovery: "Stress/recovery"
        }
    }

    /// The metrics scored in this pillar, in display order.
    public var fields: [VitalityField] { VitalityField.allCases.filter { $0.pillar == self } }

    /// The raw value.
    public var description: String { rawValue }
}
