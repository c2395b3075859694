/// The six heart-rate zones, from lowest to highest.
public enum HeartRateZone: Int, Sendable, Hashable, CaseIterable, Codable {
    /// Below T50.
    case rest
    /// T50 up to (not including) T60.
    case warmUp
    /// T60 up to T70.
    case fatBurn
    /// T70 up to T80.
    case endurance
    /// T80 up to T90.
    case performance
    /// T90 and above.
    case max
}

/// The zone boundaries T50, T60, T70, T80, T90: `round(p x maxHR)` for p = 0.5 ... 0.9.
///
/// Lower bounds are inclusive: a heart rate exactly at T60 is in the fat-burn zone.
public struct HeartRateZoneThresholds: Sendable, Equatable, Codable {
    /// round(0.5 x max HR): lowest BPM of the warm-up zone.
    public let t50: Int
    /// round(0.6 x max HR): lowest BPM of the fat-burn zone.
    public let t60: Int
    /// round(0.7 x max HR): lowest BPM of the endurance zone.
    public let t70: Int
    /// round(0.8 x max HR): lowest BPM of the performance zone.
    public let t80: Int
    /// round(0.9 x max HR): lowest BPM of the max zone.
    public let t90: Int

    /// Thresholds for a maximum heart rate (BPM); rounding is half up, done in integer tenths so
    /// that 0.7 x 185 = 129.5 gives 130 and not 129 through binary floating point.
    public init(maxHeartRate: Double) {
        let tenths = Int((maxHeartRate * 10).rounded())
        func r(_ percent: Int) -> Int { (percent * tenths + 500) / 1000 }
        t50 = r(50); t60 = r(60); t70 = r(70); t80 = r(80); t90 = r(90)
    }

    /// The zone a heart rate (BPM) falls into.
    public func zone(bpm: Double) -> HeartRateZone {
        if bpm >= Double(t90) { return .max }
        if bpm >= Double(t80) { return .performance }
        if bpm >= Double(t70) { return .endurance }
        if bpm >= Double(t60) { return .fatBurn }
        if bpm >= Double(t50) { return .warmUp }
        return .rest
    }
}
