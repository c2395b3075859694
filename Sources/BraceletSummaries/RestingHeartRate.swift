import BraceletDecoder

/// Resting heart rate: the lowest 30-minute rolling mean of counted heart rate in a time range.
///
/// Each counted sample adds its BPM to every whole UTC minute it overlaps inside the range; a
/// minute's value is the mean of those. Windows are 30 consecutive whole minutes lying inside the
/// range, moved one minute at a time; a window counts with >= 24 minutes that have a value, and its
/// mean is the mean of those minute values.
enum RestingHeartRate {
    /// Minutes in a window.
    static let windowMinutes = 30
    /// Minutes with data a window needs.
    static let requiredMinutes = 24

    /// The resting HR (rounded BPM) of counted samples in `[start, stop)`, or nil with no valid window.
    static func lowestRollingMean(samples: [Slot], start: Int64, stop: Int64, counts: (Slot) -> Bool) -> Int? {
        let firstMinute = (start + 59) / 60
        let endMinute = stop / 60
        let minutes = Int(endMinute - firstMinute)
        guard minutes >= windowMinutes else { return nil }
        var sum = [Double](repeating: 0, count: minutes)
        var n = [Int](repeating: 0, count: minutes)
        for s in samples where counts(s) {
            guard let bpm = s.bpm else { continue }
            let from = max(s.start, firstMinute * 60)
            let to = min(s.start + Int64(s.intervalSeconds), endMinute * 60)
            guard to > from else { continue }
            var m = from / 60
            while m * 60 < to {
                let i = Int(m - firstMinute)
                sum[i] += Double(bpm)
                n[i] += 1
                m += 1
            }
        }
        var valueSum = 0.0
        var present = 0
        var best: Double?
        for i in 0..<minutes {
            if n[i] > 0 { valueSum += sum[i] / Double(n[i]); present += 1 }
            if i >= windowMinutes {
                let j = i - windowMinutes
                if n[j] > 0 { valueSum -= sum[j] / Double(n[j]); present -= 1 }
            }
            if i >= windowMinutes - 1, present >= requiredMinutes {
                let m = valueSum / Double(present)
                if let current = best, current <= m + 1e-9 { continue }
                best = m
            }
        }
        return best.map(roundedInt)
    }
}
