import Glibc

/// Wall-clock time that may run faster than real time, for simulated bracelets and a gateway tested
/// over weeks in minutes: `origin + (real now - origin) x scale`. Two processes given the same
/// origin and scale agree on the time; a scale of 1 is the wall clock. Only calendar time is scaled:
/// protocol timeouts stay real.
public struct ScaledClock: Sendable, Equatable {
    /// How many seconds pass per real second (1: real time).
    public var scale: Double
    /// The real Unix time (ms) at which scaled and real time agree.
    public var originMilliseconds: Int64

    /// The wall clock (scale 1).
    public static let wall = ScaledClock(scale: 1, originMilliseconds: 0)

    /// A clock running `scale` times real time from `originMilliseconds`.
    public init(scale: Double, originMilliseconds: Int64) {
        self.scale = scale
        self.originMilliseconds = originMilliseconds
    }

    /// Now, Unix milliseconds on this clock.
    public func nowMilliseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        let real = Int64(spec.tv_sec) * 1_000 + Int64(spec.tv_nsec) / 1_000_000
        guard scale != 1 else { return real }
        return originMilliseconds + Int64((Double(real - originMilliseconds) * scale).rounded(.down))
    }

    /// Now, Unix seconds on this clock.
    public func nowSeconds() -> Int64 { nowMilliseconds() / 1_000 }

    /// The real time (ms) it takes this clock to advance `milliseconds`.
    public func realMilliseconds(_ milliseconds: Int64) -> Int64 {
        scale <= 0 ? milliseconds : Int64((Double(milliseconds) / scale).rounded(.up))
    }
}
