import Foundation

/// Which independent random quantity a noise value belongs to. Each stream gives values that are
/// unrelated to every other stream, so adding a new signal never changes existing ones.
enum NoiseStream: UInt64 {
    case heartRate = 1, heartRateExercise, heartRateSlot, bpmQuality
    case breath, breathSlot, breathQuality
    case skin, core, spo2, spo2Slot, spo2Dip, spo2Quality
    case eda, edaStress, edaStorm, edaSlot
    case fidget, cadence, cycleSpeed
    case beatPhase, beatTrain
}

/// Counter-based ("stateless") randomness: every value is a hash of (seed, stream, index).
///
/// Any slot or instant can be computed on its own, in any order, and always gets the same value,
/// so `slots(from:to:)` over part of the range equals the same part of the whole range.
struct NoiseSource: Sendable {
    let seed: UInt64

    /// 64 random bits for `index` in `stream`.
    @inline(__always)
    func bits(_ stream: NoiseStream, _ index: Int64) -> UInt64 {
        let salted = seed ^ (stream.rawValue &* 0xD1B5_4A32_D192_ED03)
        return SplitMix64.scramble(SplitMix64.scramble(salted) &+ UInt64(bitPattern: index))
    }

    /// Uniform in `0 ..< 1`.
    @inline(__always)
    func unit(_ stream: NoiseStream, _ index: Int64) -> Double {
        Double(bits(stream, index) >> 11) * 0x1.0p-53
    }

    /// Uniform in `-1 ..< 1`.
    @inline(__always)
    func signed(_ stream: NoiseStream, _ index: Int64) -> Double {
        unit(stream, index) * 2 - 1
    }

    /// Approximately standard normal (sum of four uniforms, scaled): cheap and bounded to +-3.5.
    @inline(__always)
    func gaussian(_ stream: NoiseStream, _ index: Int64) -> Double {
        let b = bits(stream, index)
        let a = Double(b & 0xFFFF) + Double((b >> 16) & 0xFFFF) + Double((b >> 32) & 0xFFFF) + Double(b >> 48)
        // Four uniforms on 0...65535 have mean 131070 and standard deviation 65536 * sqrt(4/12).
        return (a - 131_070) / 37_837.2
    }

    /// Smooth value noise in `-1 ... 1`: random values at knots every `period` seconds, joined with
    /// a smoothstep so the signal wanders without jumps.
    @inline(__always)
    func smooth(_ stream: NoiseStream, at t: Double, period: Double) -> Double {
        let x = t / period
        let k = floor(x)
        let f = x - k
        let knot = Int64(k)
        let a = signed(stream, knot)
        let b = signed(stream, knot + 1)
        let s = f * f * (3 - 2 * f)
        return a + (b - a) * s
    }
}
