import Foundation

/// A small, fast, seedable pseudo-random number generator (SplitMix64, Steele, Lea and Flood 2014).
///
/// The physiological model uses it instead of `SystemRandomNumberGenerator` so that the same seed
/// produces the same data on every machine, every run and every Swift version.
public struct SplitMix64: RandomNumberGenerator, Sendable, Equatable {
    /// The generator's internal state; advancing it by a fixed odd constant gives the next output.
    public private(set) var state: UInt64

    /// Creates a generator whose whole output is fixed by `seed`.
    public init(seed: UInt64) {
        state = seed
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return SplitMix64.scramble(state)
    }

    /// The SplitMix64 output function: a bijective 64-bit mix, usable as a fast hash of an integer.
    public static func scramble(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform value in `0 ..< 1` with 53 random bits.
    mutating func nextUnit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// A uniform value in `range`.
    mutating func uniform(_ range: ClosedRange<Double>) -> Double {
        range.lowerBound + (range.upperBound - range.lowerBound) * nextUnit()
    }

    /// A standard normal value (mean 0, standard deviation 1), Box-Muller transform.
    mutating func nextGaussian() -> Double {
        let u1 = max(nextUnit(), 0x1.0p-53)
        let u2 = nextUnit()
        return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    }
}
