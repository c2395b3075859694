/// Little-endian field access on byte buffers: the bracelet's byte order for every multi-byte field.
extension UnsafeRawBufferPointer {
    /// Reads an unaligned little-endian integer at `offset`. The caller checks bounds.
    @inlinable @inline(__always)
    public func loadLittleEndian<T: FixedWidthInteger>(at offset: Int, as type: T.Type = T.self) -> T {
        T(littleEndian: loadUnaligned(fromByteOffset: offset, as: T.self))
    }
}

extension Array where Element == UInt8 {
    /// Appends `value` in little-endian byte order.
    @inlinable
    public mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        var v = value.littleEndian
        Swift.withUnsafeBytes(of: &v) { append(contentsOf: $0) }
    }

    /// Reads a little-endian integer at `offset`, or `nil` when the array is too short.
    @inlinable
    public func readLittleEndian<T: FixedWidthInteger>(at offset: Int, as type: T.Type = T.self) -> T? {
        guard offset >= 0, offset + MemoryLayout<T>.size <= count else { return nil }
        return withUnsafeBytes { $0.loadLittleEndian(at: offset, as: T.self) }
    }
}

/// Formats bytes as lowercase hex without separators, e.g. `"01a0ff"`.
public func hexString<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
    let digits = Array("0123456789abcdef".utf8)
    var out = [UInt8]()
    out.reserveCapacity(bytes.count * 2)
    for b in bytes { out.append(digits[Int(b >> 4)]); out.append(digits[Int(b & 0xF)]) }
    return String(decoding: out, as: UTF8.self)
}

/// Parses hex (spaces, colons, dashes and newlines allowed between bytes); `nil` when it is not hex.
public func bytes(fromHex text: String) -> [UInt8]? {
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
