import BraceletDecoder

/// Which artefact filter HRV uses on top of the 300-2000 ms range check.
public enum HRVFilter: String, Sendable, Hashable, CaseIterable, Codable {
    /// Drop an interval more than 20 % away from the previous kept one (Malik et al.).
    case malik20
    /// Only the 300-2000 ms range check.
    case none
}

/// Time-domain HRV from beat-to-beat (RR) intervals.
///
/// Rules: an interval is kept when 300 <= rr <= 2000 ms and (filter `malik20`) it differs from the
/// previous kept interval by at most 20 %. Successive differences are taken only between two kept
/// intervals that are adjacent (no dropped interval and no gap between them). A gap is a beat with
/// `rrMs == nil` or a beat whose time since the previous beat differs from its `rrMs` by more than
/// ``gapToleranceMs``; after a gap the 20 % reference is cleared.
public enum HRVAnalysis {
    /// Allowed mismatch between a beat's rrMs and the time since the previous beat before it is a gap.
    public static let gapToleranceMs: Int64 = 250
    /// Shortest interval kept, ms.
    public static let minimumRRMs = 300
    /// Longest interval kept, ms.
    public static let maximumRRMs = 2000

    /// Analyses beats (any order; a beat repeated with the same time and interval is counted once).
    ///
    /// - Parameter unreadable: intervals the input held but that could not be read (a CSV cell that
    ///   is not a number in range): counted as dropped, with their reason, never left out silently.
    public static func analyze(_ beats: [Beat], filter: HRVFilter = .malik20, unreadable: Int = 0) -> HRVResult {
        let kept = keptIntervals(beats, filter: filter)
        var result = metrics(intervals: kept.intervals, differences: kept.differences, dropped: kept.dropped)
        result.droppedBy.unreadable = unreadable
        result.droppedBy.sameTime = conflictingDuplicates(beats)
        result.droppedBy.outOfRange = kept.outOfRange
        result.droppedBy.artefact = kept.dropped - kept.outOfRange
        result.dropped = result.droppedBy.total
        return result
    }

    /// Intervals that share their beat's time with another beat of a different interval: only the
    /// first of them (in time order, as the beats came) is used.
    static func conflictingDuplicates(_ beats: [Beat]) -> Int {
        var seen: [Int64: Int?] = [:]
        var conflicting = 0
        for beat in beats {
            if let first = seen[beat.timeMs] {
                if first != beat.rrMs, beat.rrMs != nil { conflicting += 1 }
            } else {
                seen[beat.timeMs] = beat.rrMs
            }
        }
        return conflicting
    }

    /// The kept intervals, the successive differences, the number dropped and how many of those
    /// were outside the range (the rest fell to the 20 % rule).
    static func keptIntervals(_ input: [Beat], filter: HRVFilter) -> (intervals: [Int], differences: [Int], dropped: Int, outOfRange: Int) {
        var intervals: [Int] = []
        var differences: [Int] = []
        let dropped = sortedUnique(input).withUnsafeBufferPointer {
            appendKept($0[...], filter: filter, intervals: &intervals, differences: &differences)
        }
        return (intervals, differences, dropped.all, dropped.outOfRange)
    }

    /// The rules of ``keptIntervals(_:filter:)`` over `beats`, already in time order without equal
    /// times: appends the kept intervals and the successive differences, returns the number dropped
    /// and how many of those were outside the range.
    /// The nightly HRV runs it on each 5-minute window of one sorted array with the same two arrays,
    /// emptied in between (a window's own copies cost more than the rules).
    private static func appendKept(_ beats: Slice<UnsafeBufferPointer<Beat>>, filter: HRVFilter,
                                   intervals: inout [Int], differences: inout [Int]) -> (all: Int, outOfRange: Int) {
        var dropped = 0
        var outOfRange = 0
        var reference: Int?
        var adjacent: Int?
        var previousTime: Int64?
        for beat in beats {
            defer { previousTime = beat.timeMs }
            guard let rr = beat.rrMs else {
                reference = nil
                adjacent = nil
                continue
            }
            let mismatch = previousTime.map { beat.timeMs &- $0 &- Int64(rr) } ?? 0
            if mismatch > gapToleranceMs || mismatch < -gapToleranceMs {
                reference = nil
                adjacent = nil
            }
            guard rr >= minimumRRMs, rr <= maximumRRMs else {
                dropped += 1
                outOfRange += 1
                adjacent = nil
                continue
            }
            if filter == .malik20, let reference, 5 * abs(rr - reference) > reference {
                dropped += 1
                adjacent = nil
                continue
            }
            intervals.append(rr)
            if let adjacent { differences.append(rr - adjacent) }
            adjacent = rr
            reference = rr
        }
        return (dropped, outOfRange)
    }

    /// Mean NN, SDNN, RMSSD, pNN50 and mean HR from kept intervals and their successive differences.
    static func metrics(intervals: [Int], differences: [Int], dropped: Int) -> HRVResult {
        let meanNN = mean(intervals)
        let sdnn = sampleStandardDeviation(intervals)
        var rmssd: Double?
        var pnn50: Double?
        if !differences.isEmpty {
            let squares = differences.reduce(0.0) { $0 + Double($1) * Double($1) }
            rmssd = (squares / Double(differences.count)).squareRoot()
            var above = 0
            for difference in differences where abs(difference) > 50 { above += 1 }
            pnn50 = Double(above) * 100 / Double(differences.count)
        }
        return HRVResult(meanNNMs: meanNN, sdnnMs: sdnn, rmssdMs: rmssd, pnn50: pnn50,
                         meanHR: meanNN.map { 60_000 / $0 }, kept: intervals.count, dropped: dropped)
    }

    /// Nightly HRV over `[start, stop)` (Unix seconds): full 5-minute windows from `start`, each
    /// analysed on its own; a window is valid with >= 80 % of its intervals kept and an RMSSD.
    public static func nightly(_ beats: [Beat], start: Int64, stop: Int64, filter: HRVFilter = .malik20) -> NightlyHRV {
        let sorted = sortedUnique(beats)
        var rmssds: [Double] = []
        var keptAll: [Int] = []
        var windowsWithBeats = 0
        var windowStart = start
        var index = sorted.partitioningIndex { $0.timeMs >= start * 1000 }
        // A window of the sorted beats is sorted and unique itself, so it is read in place.
        var intervals: [Int] = [], differences: [Int] = []
        sorted.withUnsafeBufferPointer { sorted in
            while windowStart + 300 <= stop {
                let endMs = (windowStart + 300) * 1000
                let first = index
                while index < sorted.count, sorted[index].timeMs < endMs { index += 1 }
                windowStart += 300
                intervals.removeAll(keepingCapacity: true)
                differences.removeAll(keepingCapacity: true)
                let dropped = appendKept(sorted[first..<index], filter: filter, intervals: &intervals, differences: &differences).all
                let total = intervals.count + dropped
                guard total > 0 else { continue }
                windowsWithBeats += 1
                let r = metrics(intervals: intervals, differences: differences, dropped: dropped)
                if intervals.count * 10 >= total * 8, let rmssd = r.rmssdMs {
                    rmssds.append(rmssd)
                    keptAll.append(contentsOf: intervals)
                }
            }
        }
        guard rmssds.count >= 3 else {
            return NightlyHRV(rmssdMs: nil, sdnnMs: nil, validWindows: rmssds.count, windowsWithBeats: windowsWithBeats)
        }
        return NightlyHRV(rmssdMs: rmssds.reduce(0, +) / Double(rmssds.count), sdnnMs: sampleStandardDeviation(keptAll),
                          validWindows: rmssds.count, windowsWithBeats: windowsWithBeats)
    }

    static func sortedUnique(_ beats: [Beat]) -> [Beat] {
        // Beats from the store or the engine come in time order without equal times: used as they are.
        if isStrictlyIncreasing(beats) { return beats }
        var sorted = beats
        if !isSorted(sorted) { sorted.sort { $0.timeMs < $1.timeMs } }
        var out: [Beat] = []
        out.reserveCapacity(sorted.count)
        for beat in sorted where out.last?.timeMs != beat.timeMs { out.append(beat) }
        return out
    }

    private static func isStrictlyIncreasing(_ beats: [Beat]) -> Bool {
        var i = 1
        while i < beats.count {
            if beats[i - 1].timeMs >= beats[i].timeMs { return false }
            i += 1
        }
        return true
    }

    private static func isSorted(_ beats: [Beat]) -> Bool {
        var i = 1
        while i < beats.count {
            if beats[i - 1].timeMs > beats[i].timeMs { return false }
            i += 1
        }
        return true
    }

    static func mean(_ values: [Int]) -> Double? {
        values.isEmpty ? nil : Double(values.reduce(0, +)) / Double(values.count)
    }

    static func sampleStandardDeviation(_ values: [Int]) -> Double? {
        guard values.count >= 2, let m = mean(values) else { return nil }
        let ss = values.reduce(0.0) { $0 + (Double($1) - m) * (Double($1) - m) }
        return (ss / Double(values.count - 1)).squareRoot()
    }
}

extension Array {
    /// First index whose element satisfies `predicate`, for a predicate that is false then true.
    func partitioningIndex(where predicate: (Element) -> Bool) -> Int {
        var low = 0
        var high = count
        while low < high {
            let mid = (low + high) / 2
            if predicate(self[mid]) { high = mid } else { low = mid + 1 }
        }
        return low
    }
}
