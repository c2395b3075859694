/// The text characteristics of Device Information (0x180A: manufacturer, model, serial, revisions)
/// and Battery Level (0x2A19), decoded as the GATT Specification Supplement defines them.
public enum StandardCharacteristicText {
    /// A UTF-8 string characteristic (`utf8s`): no terminator is defined, but many devices send
    /// one or pad with NULs, so trailing NULs are dropped; leading and trailing spaces too. An
    /// empty result is `nil` (the device has nothing to say). The text names the device in the
    /// database, logs, status and events, so it is held to what operator text may be
    /// (``OperatorText``: no control characters) and to ``maximumLength`` characters.
    ///
    /// - Throws: ``CharacteristicValueError/notUTF8(characteristic:)``,
    ///   ``CharacteristicValueError/notPrintable(characteristic:value:)``,
    ///   ``CharacteristicValueError/tooLong(characteristic:length:limit:)``.
    public static func string(_ value: [UInt8], characteristic: String) throws(CharacteristicValueError) -> String? {
        var bytes = value[...]
        while bytes.last == 0 { bytes = bytes.dropLast() }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw .notUTF8(characteristic: characteristic) }
        let trimmed = String(text.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
        do { try OperatorText.check(trimmed, what: characteristic) } catch {
            throw .notPrintable(characteristic: characteristic, value: error.value)
        }
        let length = trimmed.unicodeScalars.count
        guard length <= maximumLength else { throw .tooLong(characteristic: characteristic, length: length, limit: maximumLength) }
        return trimmed.isEmpty ? nil : trimmed
    }

    /// The longest Device Information text kept (Unicode scalars): a serial or model number is a
    /// short name; a longer one is not what the field is for and would swamp every line it is in.
    public static let maximumLength = 64

    /// A Battery Level value: one byte, percent 0...100.
    ///
    /// - Throws: ``CharacteristicValueError`` for an empty value or a level above 100.
    public static func batteryLevel(_ value: [UInt8]) throws(CharacteristicValueError) -> Int {
        guard let level = value.first else {
            throw .tooShort(characteristic: "Battery Level (0x2A19)", flags: nil, needed: 1, actual: 0)
        }
        guard level <= 100 else { throw .outOfRange(characteristic: "Battery Level (0x2A19)", field: "level", value: Int(level)) }
        return Int(level)
    }
}
