import BraceletDecoder

/// Which samples count toward a summary (see Definitions.md, "Counted samples").
struct SampleRules: Sendable {
    let qualityThreshold: Int

    /// Worn, or wearing unknown (a source without a wearing column).
    func isWorn(_ s: Slot) -> Bool { s.wearing.map { $0 > 0 } ?? true }

    /// Heart rate counts inside its physiological range, with quality >= threshold and worn.
    func countsHeartRate(_ s: Slot) -> Bool {
        guard let bpm = s.bpm, PhysiologicalRanges.accepts(Double(bpm), .bpm) else { return false }
        return (s.bpmQuality ?? -1) >= qualityThreshold && isWorn(s)
    }

    /// Breath rate counts inside its physiological range, with quality >= threshold and worn.
    func countsBreath(_ s: Slot) -> Bool {
        guard let b = s.breath, PhysiologicalRanges.accepts(b, .breath) else { return false }
        return (s.breathQuality ?? -1) >= qualityThreshold && isWorn(s)
    }

    /// SpO2 counts inside its physiological range, with quality >= threshold and worn.
    func countsSpo2(_ s: Slot) -> Bool {
        guard let o = s.spo2, PhysiologicalRanges.accepts(Double(o), .spo2) else { return false }
        return (s.spo2Quality ?? -1) >= qualityThreshold && isWorn(s)
    }

    /// Steps per sample are counted in 0...65 535 (the bracelet's range); other values are ignored.
    static let stepRange = 0...65_535
    /// Energy per sample is counted in 0...10 000 000 cal; other values are ignored.
    static let energyRange = 0...10_000_000

    /// Temperatures and EDA have no quality: they count inside their physiological range and worn.
    func countsValue(_ value: Double?, _ field: PhysiologicalRanges.Field, _ s: Slot) -> Bool {
        guard let value, PhysiologicalRanges.accepts(value, field) else { return false }
        return isWorn(s)
    }
}

/// Time-weighted statistics of one metric over a day.
struct WeightedStats {
    private(set) var weightedSum = 0.0
    private(set) var weight = 0.0
    private(set) var minimum: Double?
    private(set) var maximum: Double?
    private(set) var last: Double?
    private var lastTime: Int64 = .min

    mutating func add(_ value: Double, start: Int64, seconds: Int32) {
        weightedSum += value * Double(seconds)
        weight += Double(seconds)
        if minimum.map({ value < $0 }) ?? true { minimum = value }
        if maximum.map({ value > $0 }) ?? true { maximum = value }
        if start >= lastTime {
            lastTime = start
            last = value
        }
    }

    var mean: Double? { weight > 0 ? weightedSum / weight : nil }
}

/// Plain mean of the values that fall into one summary slot.
struct SlotMean {
    var sum = 0.0
    var count = 0
    var lowestQuality = Int.max
    mutating func add(_ value: Double, quality: Int? = nil) {
        sum += value
        count += 1
        if let quality { lowestQuality = min(lowestQuality, quality) }
    }
    var mean: Double? { count > 0 ? sum / Double(count) : nil }
}

/// Rounds half away from zero to an Int. Callers pass range-checked values; values beyond +-1e12
/// are clamped only so that a future caller's bad input cannot trap.
func roundedInt(_ value: Double) -> Int {
    guard value.isFinite else { return 0 }
    return Int(min(max(value, -1e12), 1e12).rounded())
}
