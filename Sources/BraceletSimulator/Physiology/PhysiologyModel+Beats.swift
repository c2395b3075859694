import BraceletDecoder
import Foundation

/// One simulated heart beat with the ground truth of whether it is ectopic.
public struct SimulatedBeat: Sendable, Equatable {
    /// The beat as the bracelet records it.
    public var beat: Beat
    /// True for a premature (ectopic) beat: its RR interval is ~38 % short and the next one is a
    /// compensatory long interval. HRV filters should drop both intervals.
    public var isEctopic: Bool

    /// Creates a simulated beat.
    public init(beat: Beat, isEctopic: Bool) {
        self.beat = beat
        self.isEctopic = isEctopic
    }
}

extension PhysiologyModel {
    /// The heart beats with `timeMs` in `from * 1000 ..< to * 1000` (UTC Unix seconds), clipped to the
    /// model's range. RR intervals follow the heart rate of the slots, with respiratory sinus
    /// arrhythmia, a 0.1 Hz rhythm and beat-to-beat noise (more variability asleep), and about one
    /// ectopic beat per thousand. No beats while off the wrist; the first beat of each worn stretch
    /// has `rrMs == nil`.
    ///
    /// Beats are computed only when asked. Each worn stretch is one continuous beat train from its
    /// start, so any window returns exactly the matching part of a longer window.
    public func beats(from: Int64, to: Int64) -> [Beat] {
        annotatedBeats(from: from, to: to).map(\.beat)
    }

    /// The same beats as `beats(from:to:)`, each marked whether it is ectopic.
    public func annotatedBeats(from: Int64, to: Int64) -> [SimulatedBeat] {
        let low = max(from, start)
        let high = min(to, end)
        guard low < high else { return [] }
        var result: [SimulatedBeat] = []
        result.reserveCapacity(Int(high - low) * 3 / 2)
        for span in wornPeriods where span.end > low && span.start < high {
            appendBeats(of: span, fromMs: low * 1_000, toMs: min(high, span.end) * 1_000, into: &result)
        }
        return result
    }

    /// Generates the beat train of one worn stretch from its start, keeping beats in `fromMs ..< toMs`.
    private func appendBeats(of span: TimeSpan, fromMs: Int64, toMs: Int64, into result: inout [SimulatedBeat]) {
        var random = SplitMix64(seed: noise.bits(.beatTrain, span.start))
        var timeMs = span.start * 1_000 + Int64(random.nextUnit() * 800)
        var previousInterval: Int?
        var breathPhase = random.nextUnit() * 2 * Double.pi
        let slowPhase = random.nextUnit() * 2 * Double.pi
        var compensatory = false
        var ectopic = false
        // Younger people have more heart-rate variability.
        let ageFactor = max(0.4, 1.3 - 0.012 * Double(person.ageYears))
        while timeMs < toMs {
            if timeMs >= fromMs {
                result.append(SimulatedBeat(beat: Beat(timeMs: timeMs, rrMs: previousInterval), isEctopic: ectopic))
            }
            let t = Double(timeMs) / 1_000
            let state = bodyState(at: t)
            let mean = 60_000 / heartRate(at: t, state)
            let calm = 1 - 0.9 * state.exertionWeight
            let sinusAmplitude: Double  // respiratory sinus arrhythmia, fraction of the interval
            let jitter: Double
            switch state.sleep?.stage {
            case .deep?: (sinusAmplitude, jitter) = (0.06, 0.015)
            case .light?: (sinusAmplitude, jitter) = (0.045, 0.015)
            case .rem?: (sinusAmplitude, jitter) = (0.03, 0.018)
            default: (sinusAmplitude, jitter) = (0.03 * calm, 0.012 * calm + 0.003)
            }
            breathPhase += 2 * Double.pi * breathRate(at: t, state) / 60 * mean / 1_000
            var interval = mean * (1 + ageFactor * (sinusAmplitude * sin(breathPhase)
                + 0.02 * calm * sin(2 * Double.pi * 0.1 * t + slowPhase) + jitter * random.nextGaussian()))
            ectopic = false
            if compensatory {
                interval = mean * 1.38
                compensatory = false
            } else if random.nextUnit() < 0.001 {
                interval = mean * 0.62
                compensatory = true
                ectopic = true
            }
            let milliseconds = Int(min(2_000, max(250, interval.rounded())))
            timeMs += Int64(milliseconds)
            previousInterval = milliseconds
        }
    }
}
