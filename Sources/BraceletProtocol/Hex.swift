// Hex text of bytes and integers: the one place the package turns binary into hex digits and back.
//
// Digests, MACs, CRCs, addresses, UUIDs, opcodes and error messages all go through these functions,
// so every hex string the package writes has the same digits and the same padding rules.
private let lowerDigits = Array("0123456789abcdef".utf8)
private let upperDigits = Array("0123456789ABCDEF".utf8)

/// Formats bytes as hex, two digits per byte, e.g. `"01a0ff"`; `separator` goes between bytes
/// (`hexString(address, uppercase: true, separator: ":")` gives `AA:BB:CC`).
package func hexString<C: Collection>(_ bytes: C, uppercase: Bool = false, separator: String = "") -> String
where C.Element == UInt8 {
    let digits = uppercase ? upperDigits : lowerDigits
    let separatorBytes = Array(separator.utf8)
    var out = [UInt8]()
    out.reserveCapacity(bytes.count * (2 + separatorBytes.count))
    for (index, b) in bytes.enumerated() {
        if index > 0 { out.append(contentsOf: separatorBytes) }
        out.append(digits[Int(b >> 4)])
        out.append(digits[Int(b & 0xF)])
    }
    return String(decoding: out, as: UTF8.self)
}

/// Formats an unsigned integer as hex padded to its width (2 digits for `UInt8`, 4 for `UInt16`,
/// 8 for `UInt32`), most significant digit first, without a `0x` prefix.
package func hexString<T: FixedWidthInteger & UnsignedInteger>(_ value: T, uppercase: Bool = false) -> String {
    let digits = uppercase ? upperDigits : lowerDigits
    var out = [UInt8]()
    out.reserveCapacity(T.bitWidth / 4)
    for shift in stride(from: T.bitWidth - 4, through: 0, by: -4) {
        out.append(digits[Int(truncatingIfNeeded: (value >> T(shift)) & 0xF)])
    }
    return String(decoding: out, as: UTF8.self)
}

/// Parses hex (spaces, colons, dashes and newlines allowed between bytes); `nil` when it is not hex.
package func bytes(fromHex text: String) -> [UInt8]? {
    let digits = text.utf8.filter { $0 != 0x20 && $0 != 0x3A && $0 != 0x0A && $0 != 0x2D }
    guard digits.count % 2 == 0 else { return nil }
    func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: c - 0x30
        case 0x61...0x66: c - 0x61 + 10
        case 0x41...0x46: c - 0x41 + 10
        default: nil
        }
    }
    var out = [UInt8]()
    out.reserveCapacity(digits.count / 2)
    var i = digits.startIndex
    while i < digits.endIndex {
        guard let hi = nibble(digits[i]), let lo = nibble(digits[i + 1]) else { return nil }
        out.append(hi << 4 | lo)
        i += 2
    }
    return out
}
