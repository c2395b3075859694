/// One field of a fixed-size record: where it sits, how to scale it, what means "no value", and
/// which raw values are physiologically valid.
public struct RecordField: Sendable, Hashable {
    /// The field's name, as the replay output key (`bpm`, `breath`, ...).
    public var name: String
    /// Byte offset within the record.
    public var offset: Int
    /// Width in bytes: 1, 2 or 4 (unsigned, little-endian).
    public var width: Int
    /// Multiply the raw value by this to get `unit`.
    public var scale: Double
    /// Unit of the scaled value.
    public var unit: String
    /// The raw "no value" sentinel: all bits set for the field width.
    public var sentinel: UInt32 { width == 4 ? 0xFFFF_FFFF : (1 << (UInt32(width) * 8)) - 1 }
    /// Raw values outside this range (and not the sentinel) are flagged out of range, never clamped.
    public var validRaw: ClosedRange<UInt32>
}

/// Layout of a metrics record: one per slot, little-endian, 24 bytes on V1 and 32 on V2 (the V1
/// fields followed by the V2 fields).
///
/// Every field's all-ones value (0xFF, 0xFFFF, 0xFFFFFFFF) means "no value" and decodes to `nil`.
/// Steps and energy are further limited per slot length: steps <= 5 per second of the slot, energy
/// <= 1000 cal per second, and active energy <= total energy; values past those are flagged.
public enum MetricsRecordLayout {
    /// The record size for a model.
    public static func size(for model: DeviceModel) -> Int { model == .v1 ? 24 : 32 }

    /// Fields present in every model.
    public static let v1Fields: [RecordField] = [
        RecordField(name: "bpm", offset: 0, width: 1, scale: 1, unit: "beats/min", validRaw: 30...220),
        RecordField(name: "bpm_q", offset: 1, width: 1, scale: 1, unit: "0-4", validRaw: 0...4),
        RecordField(name: "breath", offset: 2, width: 2, scale: 0.01, unit: "breaths/min", validRaw: 500...4500),
        RecordField(name: "breath_q", offset: 4, width: 1, scale: 1, unit: "0-4", validRaw: 0...4),
        RecordField(name: "activity", offset: 5, width: 1, scale: 1, unit: "type 0,1,2,4,6,7", validRaw: 0...7),
        RecordField(name: "steps", offset: 6, width: 2, scale: 1, unit: "steps", validRaw: 0...65534),
        RecordField(name: "speed", offset: 8, width: 2, scale: 0.01, unit: "m/s", validRaw: 0...2500),
        RecordField(name: "skin_temp_c", offset: 10, width: 2, scale: 0.01, unit: "°C", validRaw: 2000...4500),
        RecordField(name: "energy_cal", offset: 12, width: 4, scale: 1, unit: "cal", validRaw: 0...0xFFFF_FFFE),
        RecordField(name: "active_cal", offset: 16, width: 4, scale: 1, unit: "cal", validRaw: 0...0xFFFF_FFFE),
        RecordField(name: "wearing", offset: 20, width: 1, scale: 1, unit: "0-4", validRaw: 0...4),
        RecordField(name: "sleep_stage", offset: 21, width: 1, scale: 1, unit: "0-4", validRaw: 0...4),
        RecordField(name: "battery", offset: 22, width: 1, scale: 1, unit: "%", validRaw: 0...100),
    ]

    /// Fields V2 adds after byte 24.
    public static let v2Fields: [RecordField] = [
        RecordField(name: "spo2", offset: 24, width: 1, scale: 1, unit: "%", validRaw: 0...100),
        RecordField(name: "spo2_q", offset: 25, width: 1, scale: 1, unit: "0-4", validRaw: 0...4),
        RecordField(name: "core_temp_c", offset: 26, width: 2, scale: 0.01, unit: "°C", validRaw: 3400...4200),
        RecordField(name: "eda_us", offset: 28, width: 2, scale: 0.01, unit: "µS", validRaw: 0...10000),
    ]

    /// The fields of a model's record, in offset order.
    public static func fields(for model: DeviceModel) -> [RecordField] {
        model == .v1 ? v1Fields : v1Fields + v2Fields
    }

    /// Activity types the protocol defines, as a bit mask over the raw value (0, 1, 2, 4, 6, 7).
    public static let validActivityMask: UInt32 = 0b1101_0111
    /// Most steps a slot may hold per second of its length.
    public static let maximumStepsPerSecond: UInt32 = 5
    /// Most energy a slot may hold per second of its length, in calories.
    public static let maximumCaloriesPerSecond: UInt32 = 1000
}

/// Layout of a beats (RR interval) record: 8 bytes, little-endian.
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 4 | beat time: milliseconds since the file's base time |
/// | 4 | 2 | RR interval in ms since the previous beat; 0xFFFF = first beat after a gap |
/// | 6 | 1 | flags: bit 0 = the bracelet marked the beat as an artifact |
/// | 7 | 1 | reserved, 0 |
public enum BeatRecordLayout {
    /// Record size in bytes.
    public static let size = 8
    /// RR value meaning "first beat after a gap: do not difference against the previous beat".
    public static let gapSentinel: UInt16 = 0xFFFF
}
