import Testing
import BraceletDecoder

@Test func decimalsAreWrittenExactlyAsTheirDescription() {
    var generator = SystemRandomNumberGenerator()
    var values: [Double] = [0, -0.0, 0.01, -0.01, 0.1, 0.5, 1, 14.46, 36.8, 99.99, 100, 655.35, 1e-5, 1e16, 123.456, 0.30000000000000004]
    for _ in 0..<20_000 {
        values.append(Double(Int.random(in: -10_000_000...10_000_000, using: &generator)) / 100)
        values.append(Double(Int.random(in: -100_000...100_000, using: &generator)) / 10)
        values.append(Double.random(in: -1e6...1e6, using: &generator))
    }
    for value in values {
        var bytes: [UInt8] = []
        TextBytes.append(value, to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == value.description, "\(value)")
    }
}

@Test func integersAreWrittenInDecimal() {
    for value: Int64 in [0, 7, -7, 10, 1_234_567_890, Int64.max, Int64.min] {
        var bytes: [UInt8] = []
        TextBytes.append(value, to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == String(value))
    }
}
