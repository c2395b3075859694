/// Why the value of a standard (Bluetooth SIG) characteristic could not be decoded.
public enum CharacteristicValueError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The value ends before a field its flags announce.
    case tooShort(characteristic: String, flags: UInt8?, needed: Int, actual: Int)
    /// A field holds a value its specification does not allow.
    case outOfRange(characteristic: String, field: String, value: Int)
    /// A text characteristic that is not UTF-8.
    case notUTF8(characteristic: String)
    /// A text characteristic holding a control character (``OperatorText``): `value` is escaped.
    case notPrintable(characteristic: String, value: String)
    /// A text characteristic longer than `limit` characters.
    case tooLong(characteristic: String, length: Int, limit: Int)

    /// What was wrong and what to do.
    public var description: String {
        switch self {
        case let .tooShort(characteristic, flags, needed, actual):
            let announced = flags.map { " (its flags 0x\(hexString($0)) announce \(needed) bytes)" } ?? " (\(needed) needed)"
            return "the \(characteristic) value has \(actual) bytes\(announced): the device sent a cut-short value; it is ignored"
        case let .outOfRange(characteristic, field, value):
            return "the \(characteristic) value has \(field) \(value), which its specification does not allow; it is ignored"
        case .notUTF8(let characteristic):
            return "the \(characteristic) value is not UTF-8 text; it is ignored"
        case let .notPrintable(characteristic, value):
            return "the \(characteristic) value \"\(value)\" holds control characters, which may not reach logs or the database; it is ignored"
        case let .tooLong(characteristic, length, limit):
            return "the \(characteristic) value has \(length) characters, more than the \(limit) a device's name may have; it is ignored"
        }
    }
}

/// Reads the little-endian fields of one characteristic value in order, throwing
/// ``CharacteristicValueError/tooShort(characteristic:flags:needed:actual:)`` past its end.
struct CharacteristicReader {
    let value: [UInt8]
    let characteristic: String
    let flags: UInt8?
    private(set) var index: Int

    init(_ value: [UInt8], characteristic: String, flags: UInt8?, from index: Int) {
        self.value = value
        self.characteristic = characteristic
        self.flags = flags
        self.index = index
    }

    /// Whether every byte was read.
    var atEnd: Bool { index >= value.count }

    mutating func bytes(_ count: Int) throws(CharacteristicValueError) -> ArraySlice<UInt8> {
        guard index + count <= value.count else {
            throw .tooShort(characteristic: characteristic, flags: flags, needed: index + count, actual: value.count)
        }
        defer { index += count }
        return value[index..<(index + count)]
    }

    mutating func u8() throws(CharacteristicValueError) -> UInt8 { try bytes(1).first ?? 0 }

    mutating func u16() throws(CharacteristicValueError) -> UInt16 {
        let b = try bytes(2)
        return UInt16(b[b.startIndex]) | UInt16(b[b.startIndex + 1]) << 8
    }

    mutating func u24() throws(CharacteristicValueError) -> UInt32 {
        let b = try bytes(3)
        return UInt32(b[b.startIndex]) | UInt32(b[b.startIndex + 1]) << 8 | UInt32(b[b.startIndex + 2]) << 16
    }

    mutating func u32() throws(CharacteristicValueError) -> UInt32 {
        let b = try bytes(4)
        return UInt32(b[b.startIndex]) | UInt32(b[b.startIndex + 1]) << 8 | UInt32(b[b.startIndex + 2]) << 16
            | UInt32(b[b.startIndex + 3]) << 24
    }

    mutating func sfloat() throws(CharacteristicValueError) -> MedicalFloat { MedicalFloat(sfloat: try u16()) }

    mutating func float() throws(CharacteristicValueError) -> MedicalFloat { MedicalFloat(float: try u32()) }

    mutating func dateTime() throws(CharacteristicValueError) -> SIGDateTime {
        let year = try u16()
        let rest = try bytes(5)
        return SIGDateTime(year: Int(year), month: Int(rest[rest.startIndex]), day: Int(rest[rest.startIndex + 1]),
                           hours: Int(rest[rest.startIndex + 2]), minutes: Int(rest[rest.startIndex + 3]),
                           seconds: Int(rest[rest.startIndex + 4]))
    }
}
