/// A PLX Spot-Check Measurement (characteristic 0x2A5E of the Pulse Oximeter service 0x1822, by
/// indication): one SpO2 and pulse-rate reading taken on demand.
///
/// Flags byte: bit 0 Timestamp present (Date Time, 7 bytes), bit 1 Measurement Status present (16
/// bits), bit 2 Device and Sensor Status present (24 bits), bit 3 Pulse Amplitude Index present
/// (SFLOAT, percent), bit 4 the device clock is not set; bits 5-7 reserved (ignored). Then SpO2
/// (SFLOAT, percent) and PR (SFLOAT, beats per minute), then the optional fields in that order.
public struct PLXSpotCheckMeasurement: Sendable, Hashable {
    /// The reading.
    public var reading: SpO2PulseRate
    /// When it was taken, in the device's local time, when sent.
    public var timestamp: SIGDateTime?
    /// How far the oximeter trusts it, when sent.
    public var measurementStatus: PLXMeasurementStatus?
    /// The sensor's and signal's state, when sent.
    public var deviceAndSensorStatus: PLXDeviceAndSensorStatus?
    /// Pulse amplitude index, percent, when sent.
    public var pulseAmplitudeIndex: MedicalFloat?
    /// The device says its clock is not set (its timestamp is then not the time of the reading).
    public var deviceClockNotSet: Bool

    /// A measurement.
    public init(reading: SpO2PulseRate, timestamp: SIGDateTime? = nil, measurementStatus: PLXMeasurementStatus? = nil,
                deviceAndSensorStatus: PLXDeviceAndSensorStatus? = nil, pulseAmplitudeIndex: MedicalFloat? = nil,
                deviceClockNotSet: Bool = false) {
        self.reading = reading
        self.timestamp = timestamp
        self.measurementStatus = measurementStatus
        self.deviceAndSensorStatus = deviceAndSensorStatus
        self.pulseAmplitudeIndex = pulseAmplitudeIndex
        self.deviceClockNotSet = deviceClockNotSet
    }

    /// Decodes an indicated value. Bytes past the last announced field are ignored, as a value of
    /// a later version of the specification may carry more.
    public init(value: [UInt8]) throws(CharacteristicValueError) {
        guard let flags = value.first else {
            throw .tooShort(characteristic: "PLX Spot-Check Measurement (0x2A5E)", flags: nil, needed: 5, actual: 0)
        }
        var r = CharacteristicReader(value, characteristic: "PLX Spot-Check Measurement (0x2A5E)", flags: flags, from: 1)
        reading = SpO2PulseRate(spo2: try r.sfloat(), pulseRate: try r.sfloat())
        timestamp = flags & 0x01 != 0 ? try r.dateTime() : nil
        measurementStatus = flags & 0x02 != 0 ? PLXMeasurementStatus(rawValue: try r.u16()) : nil
        deviceAndSensorStatus = flags & 0x04 != 0 ? PLXDeviceAndSensorStatus(rawValue: try r.u24()) : nil
        pulseAmplitudeIndex = flags & 0x08 != 0 ? try r.sfloat() : nil
        deviceClockNotSet = flags & 0x10 != 0
    }

    /// The wire form; `nil` when a number does not fit an SFLOAT.
    public func encode() -> [UInt8]? {
        var flags: UInt8 = 0
        if timestamp != nil { flags |= 0x01 }
        if measurementStatus != nil { flags |= 0x02 }
        if deviceAndSensorStatus != nil { flags |= 0x04 }
        if pulseAmplitudeIndex != nil { flags |= 0x08 }
        if deviceClockNotSet { flags |= 0x10 }
        guard let spo2 = reading.spo2.sfloatBits, let pr = reading.pulseRate.sfloatBits else { return nil }
        var out: [UInt8] = [flags]
        out.appendLittleEndian(spo2)
        out.appendLittleEndian(pr)
        if let timestamp { out += timestamp.encode() }
        if let measurementStatus { out.appendLittleEndian(measurementStatus.rawValue) }
        if let deviceAndSensorStatus { out += PLXContinuousMeasurement.u24(deviceAndSensorStatus.rawValue) }
        if let pulseAmplitudeIndex {
            guard let bits = pulseAmplitudeIndex.sfloatBits else { return nil }
            out.appendLittleEndian(bits)
        }
        return out
    }
}

/// A PLX Continuous Measurement (characteristic 0x2A5F of the Pulse Oximeter service 0x1822, by
/// notification): the oximeter's running SpO2 and pulse rate.
///
/// Flags byte: bit 0 SpO2PR-Fast present, bit 1 SpO2PR-Slow present, bit 2 Measurement Status
/// present, bit 3 Device and Sensor Status present, bit 4 Pulse Amplitude Index present; bits 5-7
/// reserved (ignored). Then SpO2PR-Normal (two SFLOATs: percent, beats per minute), then the
/// optional fields in the flags' order.
public struct PLXContinuousMeasurement: Sendable, Hashable {
    /// The normal (default-averaged) reading.
    public var normal: SpO2PulseRate
    /// The fast-responding reading, when sent.
    public var fast: SpO2PulseRate?
    /// The slow-responding reading, when sent.
    public var slow: SpO2PulseRate?
    /// How far the oximeter trusts the readings, when sent.
    public var measurementStatus: PLXMeasurementStatus?
    /// The sensor's and signal's state, when sent.
    public var deviceAndSensorStatus: PLXDeviceAndSensorStatus?
    /// Pulse amplitude index, percent, when sent.
    public var pulseAmplitudeIndex: MedicalFloat?

    /// A measurement.
    public init(normal: SpO2PulseRate, fast: SpO2PulseRate? = nil, slow: SpO2PulseRate? = nil,
                measurementStatus: PLXMeasurementStatus? = nil, deviceAndSensorStatus: PLXDeviceAndSensorStatus? = nil,
                pulseAmplitudeIndex: MedicalFloat? = nil) {
        self.normal = normal
        self.fast = fast
        self.slow = slow
        self.measurementStatus = measurementStatus
        self.deviceAndSensorStatus = deviceAndSensorStatus
        self.pulseAmplitudeIndex = pulseAmplitudeIndex
    }

    /// Decodes a notified value. Bytes past the last announced field are ignored, as a value of a
    /// later version of the specification may carry more.
    public init(value: [UInt8]) throws(CharacteristicValueError) {
        guard let flags = value.first else {
            throw .tooShort(characteristic: "PLX Continuous Measurement (0x2A5F)", flags: nil, needed: 5, actual: 0)
        }
        var r = CharacteristicReader(value, characteristic: "PLX Continuous Measurement (0x2A5F)", flags: flags, from: 1)
        normal = SpO2PulseRate(spo2: try r.sfloat(), pulseRate: try r.sfloat())
        fast = flags & 0x01 != 0 ? SpO2PulseRate(spo2: try r.sfloat(), pulseRate: try r.sfloat()) : nil
        slow = flags & 0x02 != 0 ? SpO2PulseRate(spo2: try r.sfloat(), pulseRate: try r.sfloat()) : nil
        measurementStatus = flags & 0x04 != 0 ? PLXMeasurementStatus(rawValue: try r.u16()) : nil
        deviceAndSensorStatus = flags & 0x08 != 0 ? PLXDeviceAndSensorStatus(rawValue: try r.u24()) : nil
        pulseAmplitudeIndex = flags & 0x10 != 0 ? try r.sfloat() : nil
    }

    /// The wire form; `nil` when a number does not fit an SFLOAT.
    public func encode() -> [UInt8]? {
        var flags: UInt8 = 0
        if fast != nil { flags |= 0x01 }
        if slow != nil { flags |= 0x02 }
        if measurementStatus != nil { flags |= 0x04 }
        if deviceAndSensorStatus != nil { flags |= 0x08 }
        if pulseAmplitudeIndex != nil { flags |= 0x10 }
        var out: [UInt8] = [flags]
        for number in [normal.spo2, normal.pulseRate] + [fast, slow].compactMap({ $0 }).flatMap({ [$0.spo2, $0.pulseRate] }) {
            guard let bits = number.sfloatBits else { return nil }
            out.appendLittleEndian(bits)
        }
        if let measurementStatus { out.appendLittleEndian(measurementStatus.rawValue) }
        if let deviceAndSensorStatus { out += Self.u24(deviceAndSensorStatus.rawValue) }
        if let pulseAmplitudeIndex {
            guard let bits = pulseAmplitudeIndex.sfloatBits else { return nil }
            out.appendLittleEndian(bits)
        }
        return out
    }

    /// The low three bytes of `value`, little-endian.
    static func u24(_ value: UInt32) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF)]
    }
}
