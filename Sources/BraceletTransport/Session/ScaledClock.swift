import Glibc

/// Wall-clock time that may run faster than real time, for simulated bracelets and a gateway tested
/// over weeks in minutes: `start + (real now - origin) x scale`. Two processes given the same
/// origin, start and scale agree on the time; scale 1 with start = origin is the wall clock. Only
/// calendar time is scaled: protocol timeouts stay real.
public struct ScaledClock: Sendable, Equatable {
    /// How many seconds pass per real second (1: real time).
    public var scale: Double
    /// The real Unix time (ms) at which this clock reads ``startMilliseconds``.
    public var originMilliseconds: Int64
    /// What this clock reads at the origin (Unix ms).
    public var startMilliseconds: Int64

    /// The wall clock (scale 1).
    public static let wall = ScaledClock(scale: 1, originMilliseconds: 0)

    /// A clock running `scale` times real time, reading `startMilliseconds` (default: the origin)
    /// at real time `originMilliseconds`.
    public init(scale: Double, originMilliseconds: Int64, startMilliseconds: Int64? = nil) {
        self.scale = scale
        self.originMilliseconds = originMilliseconds
        self.startMilliseconds = startMilliseconds ?? originMilliseconds
    }

    /// Now, Unix milliseconds on this clock.
    public func nowMilliseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        let real = Int64(spec.tv_sec) * 1_000 + Int64(spec.tv_nsec) / 1_000_000
        guard scale != 1 || startMilliseconds != originMilliseconds else { return real }
        return startMilliseconds + Int64((Double(real - originMilliseconds) * scale).rounded(.down))
    }

    /// Now, Unix seconds on this clock.
    public func nowSeconds() -> Int64 { nowMilliseconds() / 1_000 }

    /// The real time (ms) it takes this clock to advance `milliseconds`.
    public func realMilliseconds(_ milliseconds: Int64) -> Int64 {
        scale <= 0 ? milliseconds : Int64((Double(milliseconds) / scale).rounded(.up))
    }
}
