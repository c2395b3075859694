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
