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
        var crc: UInt16 = 0xFFFF
        for byte in bytes { crc = (crc << 8) ^ table[Int(UInt8(crc >> 8) ^ byte)] }
        return crc
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

    /// The CRC-32 of `bytes`.
    public static func checksum<C: Collection>(_ bytes: C) -> UInt32 where C.Element == UInt8 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = (crc >> 8) ^ table[Int(UInt8(truncatingIfNeeded: crc) ^ byte)] }
        return crc ^ 0xFFFF_FFFF
    }
}
