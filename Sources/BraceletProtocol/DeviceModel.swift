/// The bracelet models this package speaks to.
///
/// V1 (vendor model 287-1) measures heart rate, breath rate, steps and activity, skin temperature and
/// sleep stage. V2 (287-2 and 287-2B) adds SpO2, core body temperature and EDA (skin conductance).
public enum DeviceModel: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Base model 287-1.
    case v1 = 1
    /// Model 287-2 / 287-2B with SpO2, core temperature and EDA.
    case v2 = 2

    /// The short name used in file names, JSON and the command line: `v1` or `v2`.
    public var description: String {
        switch self {
        case .v1: "v1"
        case .v2: "v2"
        }
    }

    /// Parses `v1` / `v2` (any case).
    public init?(name: String) {
        switch name.lowercased() {
        case "v1": self = .v1
        case "v2": self = .v2
        default: return nil
        }
    }
}
