import BraceletProtocol

/// Test helper: bytes from a hex string such as "1B 03 00 ff"; white space is ignored.
func hex(_ s: String) -> [UInt8] {
    guard let parsed = bytes(fromHex: String(s.filter { !$0.isWhitespace })) else { fatalError("not hex: \(s)") }
    return parsed
}
