/// A Temperature Measurement (characteristic 0x2A1C of the Health Thermometer service 0x1809, by
/// indication).
///
/// Flags byte: bit 0 the value is in degrees Fahrenheit (else Celsius), bit 1 Time Stamp present
/// (Date Time, 7 bytes), bit 2 Temperature Type present (one byte, ``TemperatureType``); bits 3-7
/// reserved (ignored). Then the value (FLOAT), then the optional fields in that order.
public struct TemperatureMeasurement: Sendable, Hashable {
    /// The temperature in the unit it was sent in.
    public var value: MedicalFloat
    /// Whether ``value`` is in degrees Fahrenheit (else Celsius).
    public var fahrenheit: Bool
    /// When it was taken, in the device's local time, when sent.
    public var timestamp: SIGDateTime?
    /// Where on the body it was taken, when sent.
    public var type: TemperatureType?

    /// A measurement.
    public init(value: MedicalFloat, fahrenheit: Bool = false, timestamp: SIGDateTime? = nil, type: TemperatureType? = nil) {
        self.value = value
        self.fahrenheit = fahrenheit
        self.timestamp = timestamp
        self.type = type
    }

    /// The temperature in degrees Celsius (converted from Fahrenheit when sent so); `nil` for a
    /// special value (NaN, NRes, infinities).
    public var celsius: Double? {
        guard let v = value.value else { return nil }
        return fahrenheit ? (v - 32) * 5 / 9 : v
    }

    /// Decodes an indicated value. Bytes past the last announced field are ignored.
    ///
    /// - Throws: ``CharacteristicValueError`` for a value cut short, or a Temperature Type of 0 or
    ///   above 9 (reserved).
    public init(value bytes: [UInt8]) throws(CharacteristicValueError) {
        let name = "Temperature Measurement (0x2A1C)"
        guard let flags = bytes.first else { throw .tooShort(characteristic: name, flags: nil, needed: 5, actual: 0) }
        var r = CharacteristicReader(bytes, characteristic: name, flags: flags, from: 1)
        value = try r.float()
        fahrenheit = flags & 0x01 != 0
        timestamp = flags & 0x02 != 0 ? try r.dateTime() : nil
        if flags & 0x04 != 0 {
            let code = try r.u8()
            guard let known = TemperatureType(rawValue: code) else {
                throw .outOfRange(characteristic: name, field: "Temperature Type", value: Int(code))
            }
            type = known
        } else {
            type = nil
        }
    }

    /// The wire form; `nil` when the number does not fit a FLOAT.
    public func encode() -> [UInt8]? {
        guard let bits = value.floatBits else { return nil }
        var flags: UInt8 = fahrenheit ? 0x01 : 0
        if timestamp != nil { flags |= 0x02 }
        if type != nil { flags |= 0x04 }
        var out: [UInt8] = [flags]
        out.appendLittleEndian(bits)
        if let timestamp { out += timestamp.encode() }
        if let type { out.append(type.rawValue) }
        return out
    }
}

/// Where a temperature was taken (Temperature Type, characteristic 0x2A1D; 0 and 10-255 reserved).
public enum TemperatureType: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Armpit.
    case armpit = 1
    /// Body (general).
    case body = 2
    /// Ear (usually ear lobe).
    case ear = 3
    /// Finger.
    case finger = 4
    /// Gastro-intestinal tract.
    case gastrointestinalTract = 5
    /// Mouth.
    case mouth = 6
    /// Rectum.
    case rectum = 7
    /// Toe.
    case toe = 8
    /// Tympanum (ear drum).
    case tympanum = 9

    /// Whether the site reads the skin (finger, toe) rather than the body's core: a summary keeps
    /// the two apart.
    public var isSkin: Bool { self == .finger || self == .toe }

    /// The site's name.
    public var description: String {
        switch self {
        case .armpit: "armpit"
        case .body: "body"
        case .ear: "ear"
        case .finger: "finger"
        case .gastrointestinalTract: "gastro-intestinal tract"
        case .mouth: "mouth"
        case .rectum: "rectum"
        case .toe: "toe"
        case .tympanum: "tympanum"
        }
    }
}
