/// A value column of a CSV sample export, named like the replay keys; the first column of a file
/// is always the timestamp and is not one of these.
enum CSVColumn: Int, CaseIterable {
    case bpm, bpmQuality, breath, breathQuality, steps, activity, speed, energyCal, activeCal, skinTempC,
         coreTempC, spo2, spo2Quality, eda, sleepStage, wearing, battery, rr

    /// The header name of the column.
    var name: String { Self.names[rawValue] }

    /// Header names in case order; `CSVSampleReader.knownColumns` lists them for users.
    static let names = ["bpm", "bpm_q", "breath", "breath_q", "steps", "activity", "speed", "energy_cal",
                        "active_cal", "skin_temp_c", "core_temp_c", "spo2", "spo2_q", "eda_us",
                        "sleep_stage", "wearing", "battery", "rr_ms"]

    /// The column a (lower-cased) header cell names, nil for an unknown one.
    init?(name: String) {
        guard let index = Self.names.firstIndex(of: name) else { return nil }
        self.init(rawValue: index)
    }

    /// What a cell may hold. The physiological columns (heart rate, breath, SpO2, temperatures,
    /// EDA) take any number that fits: their ranges live in one place, ``PhysiologicalRanges``,
    /// where the summary treats a value outside as missing and counts it per day.
    var range: ClosedRange<Double> {
        switch self {
        case .bpm, .breath, .skinTempC, .coreTempC, .spo2, .eda: Self.physiological
        case .bpmQuality, .breathQuality, .spo2Quality, .sleepStage, .wearing: 0...4
        case .steps, .rr: 0...65_535
        case .activity: 0...255
        case .speed, .battery: 0...100
        case .energyCal, .activeCal: 0...10_000_000
        }
    }

    /// What a physiological cell may hold to be stored at all (finite and representable).
    private static let physiological: ClosedRange<Double> = -1e9...1e9

    /// Whether the column takes fractions (the others take whole numbers only). `rr_ms` does:
    /// Empatica's E4 and other devices time beats in steps of 1/64 s (562.5 ms); the reader rounds
    /// them to the millisecond.
    var isDecimal: Bool {
        switch self {
        case .breath, .speed, .skinTempC, .coreTempC, .eda, .rr: true
        default: false
        }
    }
}

/// The bytes of one CSV line or cell, with the parsing the reader needs done on bytes: Unicode-aware
/// String work per cell made reading a large export slow.
struct CSVBytes {
    let base: UnsafeBufferPointer<UInt8>
    var start: Int
    var end: Int

    var isEmpty: Bool { start >= end }

    /// Without the given ASCII bytes at either end.
    func trimmed(_ isTrimmed: (UInt8) -> Bool) -> CSVBytes {
        var s = start, e = end
        while s < e, isTrimmed(base[s]) { s += 1 }
        while e > s, isTrimmed(base[e - 1]) { e -= 1 }
        return CSVBytes(base: base, start: s, end: e)
    }

    /// The cells between commas (at least one), each without spaces, tabs and double quotes at its ends.
    func cells() -> [CSVBytes] {
        var result: [CSVBytes] = []
        var s = start
        for i in start..<end where base[i] == UInt8(ascii: ",") {
            result.append(CSVBytes(base: base, start: s, end: i).trimmed(Self.isCellPadding))
            s = i + 1
        }
        result.append(CSVBytes(base: base, start: s, end: end).trimmed(Self.isCellPadding))
        return result
    }

    /// The cell's bytes.
    var bytes: [UInt8] { Array(base[start..<end]) }

    /// Whether the cell holds exactly `other`'s bytes.
    func bytesEqual(_ other: [UInt8]) -> Bool {
        other.count == end - start && other.withUnsafeBufferPointer { o in (0..<o.count).allSatisfy { o[$0] == base[start + $0] } }
    }

    /// The text (the input was valid UTF-8 and lines and cells are cut at ASCII bytes, so this is too).
    var string: String { String(decoding: UnsafeBufferPointer(rebasing: base[start..<end]), as: UTF8.self) }

    /// The number the cell holds, exactly as `Double(string)` reads it. Plain decimals of up to 15
    /// digits (the usual cell) are computed here: both the digits and the power of ten are exact
    /// doubles, so one division is correctly rounded, as the full parser is; anything else goes to it.
    var double: Double? {
        var i = start
        let negative = i < end && base[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        var digits: UInt64 = 0, count = 0, fraction = 0, sawDot = false, intDigits = 0
        while i < end {
            let b = base[i]
            if b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9") {
                digits = digits &* 10 &+ UInt64(b - UInt8(ascii: "0"))
                count += 1
                if sawDot { fraction += 1 } else { intDigits += 1 }
            } else if b == UInt8(ascii: "."), !sawDot {
                sawDot = true
            } else {
                return Double(string)
            }
            i += 1
        }
        guard count > 0, count <= 15, intDigits > 0, !sawDot || fraction > 0 else { return Double(string) }
        let magnitude = Double(digits) / Self.powersOfTen[fraction]
        return negative ? -magnitude : magnitude
    }

    /// The timestamp the cell holds, as `Int64(string) ?? Double(string).flatMap(Int64.init(exactly:))`
    /// reads it; plain digit strings are computed here.
    var timestamp: Int64? {
        if end > start, end - start <= 18, (start..<end).allSatisfy({ base[$0] >= UInt8(ascii: "0") && base[$0] <= UInt8(ascii: "9") }) {
            return (start..<end).reduce(Int64(0)) { $0 * 10 + Int64(base[$1] - UInt8(ascii: "0")) }
        }
        let text = string
        return Int64(text) ?? Double(text).flatMap(Int64.init(exactly:))
    }

    private static let powersOfTen: [Double] = (0...15).map { (0..<$0).reduce(1.0) { value, _ in value * 10 } }
    private static func isCellPadding(_ b: UInt8) -> Bool {
        b == UInt8(ascii: " ") || b == UInt8(ascii: "\t") || b == UInt8(ascii: "\"")
    }
}
