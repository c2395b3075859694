/// A number in the medical float formats of ISO/IEEE 11073-20601 (Annex F.6, F.7), which the
/// SIG's health profiles use for measured values: value = mantissa x 10^exponent, both signed.
///
/// - SFLOAT (16 bits): a 4-bit exponent above a 12-bit mantissa (PLX SpO2, pulse rate).
/// - FLOAT (32 bits): an 8-bit exponent above a 24-bit mantissa (Health Thermometer).
///
/// Five mantissas (with exponent 0) are not numbers: NaN (SFLOAT 0x07FF, FLOAT 0x007FFFFF), NRes
/// "not at this resolution" (0x0800, 0x00800000), +INFINITY (0x07FE, 0x007FFFFE), -INFINITY
/// (0x0802, 0x00800002) and a reserved value (0x0801, 0x00800001). A device sends them when it has
/// no valid reading: they decode to those cases, and ``value`` is `nil` for them, never 0.
public enum MedicalFloat: Sendable, Hashable, CustomStringConvertible {
    /// A finite number, `mantissa` x 10^`exponent`: the exponent carries the reading's precision
    /// (36.4 is mantissa 364, exponent -1).
    case number(mantissa: Int32, exponent: Int8)
    /// Not a number: no valid reading.
    case notANumber
    /// Not at this resolution: the value cannot be given with this precision.
    case notAtThisResolution
    /// Positive infinity (above the range).
    case positiveInfinity
    /// Negative infinity (below the range).
    case negativeInfinity
    /// The reserved special value.
    case reserved

    /// Decodes a 16-bit SFLOAT.
    public init(sfloat raw: UInt16) {
        switch raw {
        case 0x07FF: self = .notANumber
        case 0x0800: self = .notAtThisResolution
        case 0x07FE: self = .positiveInfinity
        case 0x0802: self = .negativeInfinity
        case 0x0801: self = .reserved
        default:
            let exponent = Int8(truncatingIfNeeded: Int16(bitPattern: raw) >> 12)
            let mantissa = Int32(Int16(bitPattern: raw << 4) >> 4)
            self = .number(mantissa: mantissa, exponent: exponent)
        }
    }

    /// Decodes a 32-bit FLOAT.
    public init(float raw: UInt32) {
        switch raw {
        case 0x007F_FFFF: self = .notANumber
        case 0x0080_0000: self = .notAtThisResolution
        case 0x007F_FFFE: self = .positiveInfinity
        case 0x0080_0002: self = .negativeInfinity
        case 0x0080_0001: self = .reserved
        default:
            let exponent = Int8(truncatingIfNeeded: Int32(bitPattern: raw) >> 24)
            let mantissa = Int32(bitPattern: raw << 8) >> 8
            self = .number(mantissa: mantissa, exponent: exponent)
        }
    }

    /// `value` rounded to `fractionDigits` decimals (0...7), as the smallest exponent that keeps
    /// them: 36.4 with 1 digit is mantissa 364, exponent -1.
    public init(_ value: Double, fractionDigits: Int) {
        var scale = 1.0
        for _ in 0..<max(0, min(7, fractionDigits)) { scale *= 10 }
        self = .number(mantissa: Int32(clamping: Int64((value * scale).rounded())), exponent: Int8(-max(0, min(7, fractionDigits))))
    }

    /// The number (the double nearest to mantissa x 10^exponent: 36.4 reads as the literal 36.4),
    /// `nil` for the special values.
    public var value: Double? {
        guard case let .number(mantissa, exponent) = self else { return nil }
        // Read from its decimal text, which rounds once; scaling by powers of ten rounds at each step.
        return Double("\(mantissa)e\(exponent)")
    }

    /// The 16-bit SFLOAT encoding; `nil` when the number does not fit (mantissa beyond -2048...2047
    /// or exponent beyond -8...7) or is one of the special encodings' bit patterns.
    public var sfloatBits: UInt16? {
        switch self {
        case .notANumber: return 0x07FF
        case .notAtThisResolution: return 0x0800
        case .positiveInfinity: return 0x07FE
        case .negativeInfinity: return 0x0802
        case .reserved: return 0x0801
        case let .number(mantissa, exponent):
            guard (-2048...2047).contains(mantissa), (-8...7).contains(exponent) else { return nil }
            let bits = UInt16(UInt8(bitPattern: exponent) & 0x0F) << 12 | UInt16(UInt32(bitPattern: mantissa) & 0x0FFF)
            return MedicalFloat(sfloat: bits) == self ? bits : nil
        }
    }

    /// The 32-bit FLOAT encoding; `nil` when the number does not fit (mantissa beyond 24 bits) or
    /// is one of the special encodings' bit patterns.
    public var floatBits: UInt32? {
        switch self {
        case .notANumber: return 0x007F_FFFF
        case .notAtThisResolution: return 0x0080_0000
        case .positiveInfinity: return 0x007F_FFFE
        case .negativeInfinity: return 0x0080_0002
        case .reserved: return 0x0080_0001
        case let .number(mantissa, exponent):
            guard (-8_388_608...8_388_607).contains(mantissa) else { return nil }
            let bits = UInt32(UInt8(bitPattern: exponent)) << 24 | (UInt32(bitPattern: mantissa) & 0x00FF_FFFF)
            return MedicalFloat(float: bits) == self ? bits : nil
        }
    }

    /// The number with its precision (`36.4`), or the special value's name (`NaN`, `NRes`, ...).
    public var description: String {
        switch self {
        case .notANumber: return "NaN"
        case .notAtThisResolution: return "NRes"
        case .positiveInfinity: return "+INFINITY"
        case .negativeInfinity: return "-INFINITY"
        case .reserved: return "reserved"
        case let .number(mantissa, exponent):
            // Written from the digits, never through a binary number: a FLOAT's exponent reaches
            // 10^127, beyond every integer type.
            guard exponent < 0 else { return "\(mantissa)" + (mantissa == 0 ? "" : String(repeating: "0", count: Int(exponent))) }
            let digits = -Int(exponent)
            let magnitude = String(mantissa.magnitude)
            let padded = String(repeating: "0", count: max(0, digits + 1 - magnitude.count)) + magnitude
            let split = padded.index(padded.endIndex, offsetBy: -digits)
            return (mantissa < 0 ? "-" : "") + padded[..<split] + "." + padded[split...]
        }
    }
}
