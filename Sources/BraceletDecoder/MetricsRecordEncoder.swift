import BraceletProtocol

/// Why a slot cannot be written as a metrics record.
public enum RecordEncodingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A value does not fit its field's width (the all-ones value is reserved for "no value").
    case valueDoesNotFit(field: String, value: Double, slotStart: Int64)

    public var description: String {
        switch self {
        case let .valueDoesNotFit(field, value, start):
            "slot at \(start): \(field) = \(value) does not fit its wire field; check the source of the value"
        }
    }
}

/// Writes ``Slot``s as metrics records: the inverse of ``MetricsDecoder`` (used by the simulated
/// bracelet, the capture generator and round-trip tests).
public struct MetricsRecordEncoder: Sendable {
    /// The model whose layout to write.
    public let model: DeviceModel

    /// An encoder for `model`.
    public init(model: DeviceModel) { self.model = model }

    /// Appends the record for `slot` to `out`. Fields of the other model are ignored.
    public func append(_ slot: Slot, to out: inout [UInt8]) throws(RecordEncodingError) {
        func fit(_ value: Double?, _ name: String, divisor: Double, max: Double) throws(RecordEncodingError) -> Double? {
            guard let value else { return nil }
            let raw = (value * divisor).rounded()
            guard raw >= 0, raw < max else { throw .valueDoesNotFit(field: name, value: value, slotStart: slot.start) }
            return raw
        }
        func u8(_ v: Int?, _ name: String) throws(RecordEncodingError) {
            out.append(try fit(v.map(Double.init), name, divisor: 1, max: 255).map { UInt8($0) } ?? 0xFF)
        }
        func u16(_ v: Double?, _ name: String, divisor: Double = 1) throws(RecordEncodingError) {
            out.appendLittleEndian(try fit(v, name, divisor: divisor, max: 65535).map { UInt16($0) } ?? 0xFFFF)
        }
        func u32(_ v: Int?, _ name: String) throws(RecordEncodingError) {
            out.appendLittleEndian(try fit(v.map(Double.init), name, divisor: 1, max: 4_294_967_295).map { UInt32($0) } ?? 0xFFFF_FFFF)
        }
        try u8(slot.bpm, "bpm")
        try u8(slot.bpmQuality, "bpm_q")
        try u16(slot.breath, "breath", divisor: 100)
        try u8(slot.breathQuality, "breath_q")
        try u8(slot.activity, "activity")
        try u16(slot.steps.map(Double.init), "steps")
        try u16(slot.speed, "speed", divisor: 100)
        try u16(slot.skinTempC, "skin_temp_c", divisor: 100)
        try u32(slot.energyCal, "energy_cal")
        try u32(slot.activeCal, "active_cal")
        try u8(slot.wearing, "wearing")
        try u8(slot.sleepStage, "sleep_stage")
        try u8(slot.battery, "battery")
        out.append(0)
        if model == .v2 {
            try u8(slot.spo2, "spo2")
            try u8(slot.spo2Quality, "spo2_q")
            try u16(slot.coreTempC, "core_temp_c", divisor: 100)
            try u16(slot.edaMicrosiemens, "eda_us", divisor: 100)
            out.appendLittleEndian(UInt16(0))
        }
    }

    /// A whole sealed metrics file for consecutive slots starting at `slots[0].start`.
    ///
    /// Slots must be evenly spaced by `intervalSeconds`; a missing slot is written as a record with
    /// no values.
    public func sealedFile(serial: String, timeZoneOffsetMinutes: Int, intervalSeconds: Int, firstStart: Int64,
                           slots: [Slot]) throws(RecordEncodingError) -> [UInt8] {
        var records = [UInt8]()
        records.reserveCapacity(slots.count * MetricsRecordLayout.size(for: model))
        for slot in slots { try append(slot, to: &records) }
        let header = FileHeader(kind: .metrics, model: model, serial: serial, baseTime: firstStart,
                                timeZoneOffsetMinutes: timeZoneOffsetMinutes, intervalSeconds: intervalSeconds,
                                recordCount: slots.count)
        return SealedFile.seal(header: header, records: records)
    }
}
