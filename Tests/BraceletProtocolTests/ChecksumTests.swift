import Testing
@testable import BraceletProtocol

/// CRC-16/CCITT-FALSE bit by bit: the definition, independent of the tables and of the folding.
private func bitwiseCRC16(_ bytes: ArraySlice<UInt8>) -> UInt16 {
    var crc: UInt16 = 0xFFFF
    for byte in bytes {
        crc ^= UInt16(byte) << 8
        for _ in 0..<8 { crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1 }
    }
    return crc
}

/// CRC-32/ISO-HDLC bit by bit.
private func bitwiseCRC32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return crc ^ 0xFFFF_FFFF
}

/// Every length up to 300 (below, at and past the 32 bytes where folding starts, and every tail
/// length after the 16-byte blocks) and longer random ones, from every start offset modulo 16, so
/// that the folded path, the table path and their hand-over all meet the definition.
@Test func checksumsEqualTheBitwiseDefinitionAtEveryLengthAndAlignment() {
    var rng = SystemRandomNumberGenerator()
    let data = (0..<6_000).map { _ in UInt8.random(in: 0...255, using: &rng) }
    var lengths = Array(0...300)
    for _ in 0..<40 { lengths.append(Int.random(in: 301...5_000, using: &rng)) }
    for length in lengths {
        let offset = length % 16
        let slice = data[offset..<(offset + length)]
        #expect(CRC16.checksum(slice) == bitwiseCRC16(slice), "CRC-16 of \(length) bytes at offset \(offset)")
        #expect(CRC32.checksum(slice) == bitwiseCRC32(slice), "CRC-32 of \(length) bytes at offset \(offset)")
    }
}
