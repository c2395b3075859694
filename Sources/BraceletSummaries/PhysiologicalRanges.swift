import BraceletDecoder

/// The physiological ranges of the summary model, in one place: a sample outside its range is a
/// sensor or transfer fault, not a measurement. It is treated as missing (never clamped, never
/// read as 0), counted per day in ``DayDiagnostics`` and reported once per sample as a
/// ``SummaryDiagnostic`` of kind `outOfRange`.
///
/// Ranges (see Definitions.md, "Physiological ranges"): heart rate 30-220 bpm, breath 5-45 brpm
/// and SpO2 0-100 % are the vendor summary model's; skin and core temperature 15-45 °C (the model's
/// core-temperature range, used for skin too: a reading outside it is not a body); EDA 0-100 µS
/// (the protocol's documented range).
public enum PhysiologicalRanges {
    /// Heart rate, beats per minute.
    public static let bpm: ClosedRange<Double> = 30...220
    /// Breath rate, breaths per minute.
    public static let breath: ClosedRange<Double> = 5...45
    /// SpO2, percent.
    public static let spo2: ClosedRange<Double> = 0...100
    /// Skin and core temperature, °C.
    public static let temperatureC: ClosedRange<Double> = 15...45
    /// Skin conductance, microsiemens.
    public static let edaMicrosiemens: ClosedRange<Double> = 0...100

    /// A checked field: its JSON name and its range.
    public enum Field: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
        /// Heart rate.
        case bpm
        /// Breath rate.
        case breath
        /// SpO2.
        case spo2
        /// Skin temperature.
        case skinTempC
        /// Core body temperature.
        case coreTempC
        /// Skin conductance.
        case edaMicrosiemens

        /// The allowed range.
        public var range: ClosedRange<Double> {
            switch self {
            case .bpm: PhysiologicalRanges.bpm
            case .breath: PhysiologicalRanges.breath
            case .spo2: PhysiologicalRanges.spo2
            case .skinTempC, .coreTempC: PhysiologicalRanges.temperatureC
            case .edaMicrosiemens: PhysiologicalRanges.edaMicrosiemens
            }
        }

        /// The unit, for messages.
        public var unit: String {
            switch self {
            case .bpm: "bpm"
            case .breath: "brpm"
            case .spo2: "%"
            case .skinTempC, .coreTempC: "°C"
            case .edaMicrosiemens: "µS"
            }
        }

        /// Orders fields as declared.
        public static func < (a: Field, b: Field) -> Bool {
            allCases.firstIndex(of: a) ?? 0 < allCases.firstIndex(of: b) ?? 0
        }

        /// The field's value in a sample, as a number.
        func value(in s: Slot) -> Double? {
            switch self {
            case .bpm: s.bpm.map(Double.init)
            case .breath: s.breath
            case .spo2: s.spo2.map(Double.init)
            case .skinTempC: s.skinTempC
            case .coreTempC: s.coreTempC
            case .edaMicrosiemens: s.edaMicrosiemens
            }
        }
    }

    /// True when `value` is a finite number inside `field`'s range.
    public static func accepts(_ value: Double, _ field: Field) -> Bool {
        value.isFinite && field.range.contains(value)
    }

    /// The fields of `s` that carry a value outside their range (NaN and infinities included).
    public static func violations(in s: Slot) -> [Field] {
        Field.allCases.filter { field in field.value(in: s).map { !accepts($0, field) } ?? false }
    }
}

/// Per-day counts of what was wrong with the day's samples (the `diagnostics` object of a day).
public struct DayDiagnostics: Sendable, Equatable, Codable {
    /// Samples whose value lay outside its physiological range, per field; those values were
    /// treated as missing. Empty when every value was in range.
    public var outOfRange: [OutOfRangeCount]

    /// No problems.
    public init(outOfRange: [OutOfRangeCount] = []) { self.outOfRange = outOfRange }
}

/// How many samples of one field were out of range in a day.
public struct OutOfRangeCount: Sendable, Equatable, Codable {
    /// The field (`bpm`, `breath`, `spo2`, `skinTempC`, `coreTempC`, `edaMicrosiemens`).
    public var field: PhysiologicalRanges.Field
    /// Samples whose value was outside the range.
    public var samples: Int
    /// Lowest accepted value.
    public var allowedMin: Double
    /// Highest accepted value.
    public var allowedMax: Double
    /// Lowest rejected finite value (nil when every rejected value was NaN or infinite).
    @Nullable public var lowestSeen: Double?
    /// Highest rejected finite value.
    @Nullable public var highestSeen: Double?
}

/// Counts out-of-range samples of one day, field by field.
struct OutOfRangeCounter {
    private var counts: [PhysiologicalRanges.Field: (n: Int, low: Double?, high: Double?)] = [:]

    /// Records the out-of-range fields of `s`.
    mutating func record(_ s: Slot) {
        for field in PhysiologicalRanges.violations(in: s) {
            let v = field.value(in: s) ?? .nan
            var entry = counts[field] ?? (0, nil, nil)
            entry.n += 1
            if v.isFinite {
                entry.low = min(entry.low ?? v, v)
                entry.high = max(entry.high ?? v, v)
            }
            counts[field] = entry
        }
    }

    var diagnostics: DayDiagnostics {
        DayDiagnostics(outOfRange: counts.keys.sorted().compactMap { field in
            counts[field].map { OutOfRangeCount(field: field, samples: $0.n, allowedMin: field.range.lowerBound,
                                                allowedMax: field.range.upperBound, lowestSeen: $0.low, highestSeen: $0.high) }
        })
    }
}

/// A value for a message: whole numbers without a fraction (`250`), others as Swift prints them.
func formatValue(_ v: Double) -> String {
    v.isFinite && v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v)
}
