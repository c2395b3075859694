/// The kinds of file a bracelet keeps. A file-size request names one kind and activates that file
/// for streaming.
public enum FileKind: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Raw metrics: one fixed-size record per slot (heart rate, breath, steps, temperatures, sleep
    /// stage, and on V2 SpO2, core temperature and EDA). Magic `BRCM`.
    case metrics = 0x01
    /// Activity events. Reserved: current firmware records activity inside `metrics` and answers 0.
    case activity = 0x02
    /// Workout events. Reserved: answered with size 0.
    case workout = 0x03
    /// Beat-to-beat (RR interval) file. Magic `BRCR`.
    case beats = 0x04
    /// Sleep events. Reserved: sleep stages travel inside `metrics`; answered with size 0.
    case sleep = 0x05
    /// Firmware log as UTF-8 text lines, for support.
    case logs = 0x06

    /// A short lowercase name used in messages and the store.
    public var description: String {
        switch self {
        case .metrics: "metrics"
        case .activity: "activity"
        case .workout: "workout"
        case .beats: "beats"
        case .sleep: "sleep"
        case .logs: "logs"
        }
    }
}

/// A measurement plan: what the bracelet measures and how often. Set after every connection.
public struct MeasurementPlan: RawRepresentable, Sendable, Hashable {
    /// The plan id sent on the wire (0-10).
    public var rawValue: UInt8
    /// Wraps a plan id.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Stand-by, about 16 days of battery.
    public static let standBy = MeasurementPlan(rawValue: 0)
    /// Maximum battery life, about 15 days.
    public static let maxBattery = MeasurementPlan(rawValue: 1)
    /// Typical: heart rate once a minute, about 7.5 days.
    public static let typical = MeasurementPlan(rawValue: 2)
    /// High-resolution BPM: heart rate and breath every 10 s, about 6.5 days.
    public static let highResolution = MeasurementPlan(rawValue: 3)
    /// 25 Hz raw, about 5 days.
    public static let raw25Hz = MeasurementPlan(rawValue: 4)
    /// Hospital raw, about 3.5 days.
    public static let hospitalRaw = MeasurementPlan(rawValue: 5)
    /// Typical multicolor (V2 only), about 7 days.
    public static let typicalMulticolor = MeasurementPlan(rawValue: 7)
    /// High-resolution multicolor (V2 only), about 4 days.
    public static let highResolutionMulticolor = MeasurementPlan(rawValue: 8)

    /// Whether `model` accepts this plan: 6 is reserved; 7-10 use the multicolor sensor of V2.
    public func isSupported(by model: DeviceModel) -> Bool {
        switch rawValue {
        case 0...5: true
        case 7...10: model == .v2
        default: false
        }
    }
}
