import CCRCFolding

/// CRC-8/SMBUS: polynomial 0x07, initial value 0x00, no reflection, no final XOR.
///
/// Protects every command frame and every 6-byte command response. Check value: the ASCII bytes
/// `123456789` give 0xF4.
public enum CRC8 {
    static let table: [UInt8] = (0..<256).map { byte in
        var crc = UInt8(byte)
        for _ in 0..<8 { crc = crc & 0x80 != 0 ? (crc << 1) ^ 0x07 : crc << 1 }
        return crc
    }

    /// The CRC-8 of `bytes`.
    public static func checksum<C: Collection>(_ bytes: C) -> UInt8 where C.Element == UInt8 {
        var crc: UInt8 = 0
        for byte in bytes { crc = table[Int(crc ^ byte)] }
        return crc
    }
}

/// CRC-16/CCITT-FALSE: polynomial 0x1021, initial value 0xFFFF, no reflection, no final XOR.
///
/// Protects every data packet. Check value: `123456789` gives 0x29B1.
public enum CRC16 {
    static let table: [UInt16] = (0..<256).map { byte in
        var crc = UInt16(byte) << 8
        for _ in 0..<8 { crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1 }
        return crc
    }

    /// The CRC-16 of `bytes`.
    public static func checksum<C: Collection>(_ bytes: C) -> UInt16 where C.Element == UInt8 {
        if let crc = bytes.withContiguousStorageIfAvailable({ checksum(UnsafeRawBufferPointer($0)) }) { return crc }
        return checksum(Array(bytes))
    }

    /// Eight tables for slice-by-8: `tables[k][b]` is the CRC (from a zero register) of byte `b`
    /// followed by `k` zero bytes. The CRC is linear, so eight bytes are the XOR of eight lookups once
    /// the register is folded into the first two of them.
    static let tables: [UInt16] = {
        var t = [UInt16](repeating: 0, count: 8 * 256)
        for i in 0..<256 { t[i] = table[i] }
        for k in 1..<8 {
            for i in 0..<256 {
                let prev = t[(k - 1) * 256 + i]
                t[k * 256 + i] = (prev << 8) ^ table[Int(prev >> 8)]
            }
        }
        return t
    }()

    /// The CRC-16 of contiguous bytes: every data packet of a transfer is checked, so this runs over
    /// every byte a bracelet sends. The bulk is folded by carry-less multiplication when the CPU can
    /// (`CCRCFolding`), the rest goes through the tables.
    public static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt16 {
        let (folded, remainder) = foldedRemainder(bytes) { bracelet_crc16_fold(0xFFFF, $0, $1, $2) }
        guard folded > 0 else { return update(0xFFFF, bytes) }
        return update(withUnsafeBytes(of: remainder) { update(0, $0) }, UnsafeRawBufferPointer(rebasing: bytes[folded...]))
    }

    /// The register after `bytes`, from `crc`, eight bytes per step (slice-by-8).
    static func update(_ start: UInt16, _ bytes: UnsafeRawBufferPointer) -> UInt16 {
        tables.withUnsafeBufferPointer { t in
            var crc = start
            var i = 0
            let n = bytes.count
            while i + 8 <= n {
                let b0 = bytes[i] ^ UInt8(truncatingIfNeeded: crc >> 8), b1 = bytes[i + 1] ^ UInt8(truncatingIfNeeded: crc)
                crc = t[7 * 256 + Int(b0)] ^ t[6 * 256 + Int(b1)] ^ t[5 * 256 + Int(bytes[i + 2])] ^ t[4 * 256 + Int(bytes[i + 3])]
                    ^ t[3 * 256 + Int(bytes[i + 4])] ^ t[2 * 256 + Int(bytes[i + 5])] ^ t[256 + Int(bytes[i + 6])] ^ t[Int(bytes[i + 7])]
                i += 8
            }
            while i < n {
                crc = (crc << 8) ^ t[Int(UInt8(truncatingIfNeeded: crc >> 8) ^ bytes[i])]
                i += 1
            }
            return crc
        }
    }
}

/// CRC-32/ISO-HDLC (the zlib / Ethernet CRC): reflected polynomial 0xEDB88320, initial value and
/// final XOR 0xFFFFFFFF.
///
/// Protects a whole sealed file (header and records). Check value: `123456789` gives 0xCBF43926.
public enum CRC32 {
    static let table: [UInt32] = (0..<256).map { byte in
        var crc = UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        return crc
    }

    /// Eight tables for slice-by-8: `tables[k][b]` is the CRC of byte `b` followed by `k` zero bytes.
    static let tables: [UInt32] = {
        var t = [UInt32](repeating: 0, count: 8 * 256)
        for i in 0..<256 { t[i] = table[i] }
        for k in 1..<8 {
            for i in 0..<256 {
                let prev = t[(k - 1) * 256 + i]
                t[k * 256 + i] = (prev >> 8) ^ table[Int(prev & 0xFF)]
            }
        }
        return t
    }()

    /// The CRC-32 of `bytes`.
    public static func checksum<C: Collection>(_ bytes: C) -> UInt32 where C.Element == UInt8 {
        if let crc = bytes.withContiguousStorageIfAvailable({ checksum(UnsafeRawBufferPointer($0)) }) { return crc }
        return checksum(Array(bytes))
    }

    /// The CRC-32 of contiguous bytes: the bulk folded by carry-less multiplication when the CPU
    /// can (`CCRCFolding`), the rest through the tables.
    public static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        let (folded, remainder) = foldedRemainder(bytes) { bracelet_crc32_fold(0xFFFF_FFFF, $0, $1, $2) }
        guard folded > 0 else { return update(0xFFFF_FFFF, bytes) ^ 0xFFFF_FFFF }
        return update(withUnsafeBytes(of: remainder) { update(0, $0) }, UnsafeRawBufferPointer(rebasing: bytes[folded...])) ^ 0xFFFF_FFFF
    }

    /// The register (not inverted) after `bytes`, from `crc`, eight bytes per step (slice-by-8).
    static func update(_ start: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
        tables.withUnsafeBufferPointer { t in
            var crc = start
            var i = 0
            let n = bytes.count
            while i + 8 <= n {
                let lo = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: i, as: UInt32.self)) ^ crc
                let hi = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: i + 4, as: UInt32.self))
                crc = t[7 * 256 + Int(lo & 0xFF)] ^ t[6 * 256 + Int((lo >> 8) & 0xFF)]
                    ^ t[5 * 256 + Int((lo >> 16) & 0xFF)] ^ t[4 * 256 + Int(lo >> 24)]
                    ^ t[3 * 256 + Int(hi & 0xFF)] ^ t[2 * 256 + Int((hi >> 8) & 0xFF)]
                    ^ t[1 * 256 + Int((hi >> 16) & 0xFF)] ^ t[Int(hi >> 24)]
                i += 8
            }
            while i < n {
                crc = (crc >> 8) ^ t[Int(UInt8(truncatingIfNeeded: crc) ^ bytes[i])]
                i += 1
            }
            return crc
        }
    }
}

/// Runs a `CCRCFolding` function over `bytes`: how many bytes it folded (0: none, the CPU cannot or
/// there are too few) and the 16 remainder bytes it wrote, to be finished through a table.
private func foldedRemainder(_ bytes: UnsafeRawBufferPointer,
                             _ fold: (UnsafePointer<UInt8>, Int, UnsafeMutablePointer<UInt8>) -> Int) -> (Int, (UInt64, UInt64)) {
    var remainder: (UInt64, UInt64) = (0, 0)
    guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return (0, remainder) }
    let folded = withUnsafeMutableBytes(of: &remainder) { out in
        fold(base, bytes.count, out.baseAddress!.assumingMemoryBound(to: UInt8.self))
    }
    return (folded, remainder)
}
