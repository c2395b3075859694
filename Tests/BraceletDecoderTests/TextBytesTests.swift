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
    // Every digit count (each has its own path up to four digits) and both sides of each boundary.
    var values: [Int64] = [0, 7, -7, 1_234_567_890, Int64.max, Int64.min]
    for exponent in 1...18 {
        let power = (1..<exponent).reduce(Int64(10)) { value, _ in value * 10 }
        values += [power - 1, power, power + 1, -(power - 1), -power]
    }
    for value in values {
        var bytes: [UInt8] = []
        TextBytes.append(value, to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == String(value))
    }
}
