/// Test helper: bytes from a hex string such as "1B 03 00 ff"; spaces are ignored.
func hex(_ s: String) -> [UInt8] {
    let digits = s.filter { !$0.isWhitespace }
    var out: [UInt8] = []
    var i = digits.startIndex
    while i < digits.endIndex {
        let j = digits.index(after: i)
        out.append(UInt8(digits[i...j], radix: 16)!)
        i = digits.index(after: j)
    }
    return out
}
