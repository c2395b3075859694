import BraceletDecoder

/// Computes the nightly HRV of given sleep-session windows from a stream of beats in time order,
/// holding only the beats of the windows still open: the beats half of ``DayByDaySummarizer``.
///
/// Beats are kept or dropped as ``SummaryEngine`` keeps them (a beat more than 5 minutes in the
/// future or outside 2000...2100 is dropped and counted; of two beats at the same time the first
/// one fed wins), so each window's HRV equals the engine's. A window is computed once the latest
/// beat lies ``DayByDaySummarizer/disorderToleranceSeconds`` past its stop; a beat that comes later
/// than that behind the latest one sets ``outOfOrder``.
public struct SessionHRVCollector {
    private let windows: [SessionWindow]
    private let now: Int64
    /// Beats of the windows from `firstOpen` on, by window index.
    private var held: [Int: [Beat]] = [:]
    private var firstOpen = 0
    private var latestMs: Int64 = .min / 2
    private var tally = InputTally()
    private var results: [SessionWindow: NightlyHRV] = [:]

    /// A beat came more than the tolerance behind the latest one: the HRV of a window already
    /// computed may lack it.
    public private(set) var outOfOrder = false

    /// A collector for `windows` (any order; overlapping windows are not expected: sessions do not overlap).
    public init(windows: some Sequence<SessionWindow>, now: Int64) {
        self.windows = Set(windows).sorted()
        self.now = now
    }

    /// Adds the next beats (in time order, within the tolerance).
    public mutating func add(_ beats: some Sequence<Beat>) {
        let toleranceMs = DayByDaySummarizer.disorderToleranceSeconds * 1000
        for beat in beats where tally.accepts(beat, now: now) {
            if beat.timeMs < latestMs - toleranceMs { outOfOrder = true }
            if beat.timeMs > latestMs {
                latestMs = beat.timeMs
                close(before: latestMs - toleranceMs)
            }
            // The last window starting at or before the beat.
            let next = windows.partitioningIndex { $0.start * 1000 > beat.timeMs }
            guard next > firstOpen, beat.timeMs < windows[next - 1].stop * 1000 else { continue }
            held[next - 1, default: []].append(beat)
        }
    }

    /// Ends the input: the HRV of every window, and the beats dropped for their times.
    public mutating func finish() -> (hrv: [SessionWindow: NightlyHRV], dropped: BeatTally) {
        close(before: .max)
        var dropped = BeatTally()
        dropped.implausible = tally.implausibleBeats
        dropped.firstFuture = tally.futureBeat
        return (results, dropped)
    }

    /// Computes the windows that stop by `timeMs`.
    private mutating func close(before timeMs: Int64) {
        while firstOpen < windows.count, timeMs == .max || windows[firstOpen].stop * 1000 <= timeMs {
            let window = windows[firstOpen]
            let beats = held.removeValue(forKey: firstOpen) ?? []
            results[window] = HRVAnalysis.nightly(Self.firstOfEachTime(beats), start: window.start, stop: window.stop)
            firstOpen += 1
        }
    }

    /// Sorted by time, keeping the first beat fed of each time (as the engine's merge does).
    private static func firstOfEachTime(_ beats: [Beat]) -> [Beat] {
        var sorted = beats
        sorted.sort { $0.timeMs < $1.timeMs }
        var out: [Beat] = []
        out.reserveCapacity(sorted.count)
        for beat in sorted where out.last?.timeMs != beat.timeMs { out.append(beat) }
        return out
    }
}
