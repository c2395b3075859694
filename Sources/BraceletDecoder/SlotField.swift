/// A set of slot fields, used to flag values the decoder found out of their valid range.
///
/// Out-of-range values are kept as recorded (never clamped) and flagged here so that summaries can
/// skip them and people can see them.
public struct SlotFields: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let bpm = SlotFields(rawValue: 1 << 0)
    public static let bpmQuality = SlotFields(rawValue: 1 << 1)
    public static let breath = SlotFields(rawValue: 1 << 2)
    public static let breathQuality = SlotFields(rawValue: 1 << 3)
    public static let activity = SlotFields(rawValue: 1 << 4)
    public static let steps = SlotFields(rawValue: 1 << 5)
    public static let speed = SlotFields(rawValue: 1 << 6)
    public static let skinTemp = SlotFields(rawValue: 1 << 7)
    public static let energy = SlotFields(rawValue: 1 << 8)
    public static let activeEnergy = SlotFields(rawValue: 1 << 9)
    public static let wearing = SlotFields(rawValue: 1 << 10)
    public static let sleepStage = SlotFields(rawValue: 1 << 11)
    public static let battery = SlotFields(rawValue: 1 << 12)
    public static let spo2 = SlotFields(rawValue: 1 << 13)
    public static let spo2Quality = SlotFields(rawValue: 1 << 14)
    public static let coreTemp = SlotFields(rawValue: 1 << 15)
    public static let eda = SlotFields(rawValue: 1 << 16)

    /// Each field with its replay key, in replay order.
    public static let namedFields: [(SlotFields, String)] = [
        (.bpm, "bpm"), (.bpmQuality, "bpm_q"), (.breath, "breath"), (.breathQuality, "breath_q"),
        (.steps, "steps"), (.activity, "activity"), (.speed, "speed"), (.energy, "energy_cal"),
        (.activeEnergy, "active_cal"), (.skinTemp, "skin_temp_c"), (.coreTemp, "core_temp_c"),
        (.spo2, "spo2"), (.spo2Quality, "spo2_q"), (.eda, "eda_us"), (.sleepStage, "sleep_stage"),
        (.wearing, "wearing"), (.battery, "battery"),
    ]

    /// The replay keys of the fields in this set.
    public var names: [String] { SlotFields.namedFields.filter { contains($0.0) }.map(\.1) }
}
