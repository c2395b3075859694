import BraceletDecoder
import BraceletProtocol

/// Produces the bracelet's live Heart Rate Measurement notifications (one per second while worn)
/// from the physiological model's beats. A moment past the end of the recorded history replays the
/// same time of day from the history's last day, so a long-running simulator never runs dry.
public struct LiveHeartRateSource: Sendable {
    /// The model whose beats are notified.
    public let model: PhysiologyModel
    private var buffer: [Beat] = []
    private var bufferRange: Range<Int64> = 0..<0

    /// A source for `model`.
    public init(model: PhysiologyModel) { self.model = model }

    /// The model time that `unixSeconds` maps to (itself inside the history, else shifted by whole days).
    public func modelTime(for unixSeconds: Int64) -> Int64 {
        guard unixSeconds >= model.end else { return max(unixSeconds, model.start) }
        let days = (unixSeconds - model.end) / 86_400 + 1
        return max(model.start, unixSeconds - days * 86_400)
    }

    /// The measurement for the second ending at `unixSeconds`: the beats of `[t - 1, t)` with their
    /// RR intervals in 1/1024 s; `nil` when the bracelet is off the wrist (no beats).
    public mutating func measurement(endingAt unixSeconds: Int64) -> HeartRateMeasurement? {
        let t = modelTime(for: unixSeconds)
        if !bufferRange.contains(t - 1) || !bufferRange.contains(t) {
            bufferRange = (t - 1)..<(t + 600)
            buffer = model.beats(from: bufferRange.lowerBound, to: bufferRange.upperBound)
        }
        let lowMs = (t - 1) * 1_000, highMs = t * 1_000
        var rr: [UInt16] = []
        var lastRR: Int?
        for beat in buffer where beat.timeMs >= lowMs && beat.timeMs < highMs {
            if let r = beat.rrMs {
                rr.append(UInt16(clamping: Int((Double(r) * 1.024).rounded())))
                lastRR = r
            }
        }
        guard let lastRR, lastRR > 0 else { return nil }
        return HeartRateMeasurement(bpm: Int((60_000 / Double(lastRR)).rounded()), contactDetected: true,
                                    energyExpendedKJ: nil, rrIntervals1024: rr)
    }
}
