/// Numbers and times appended as ASCII bytes, for writers that produce millions of records and
/// cannot afford a `String` per value.
public enum TextBytes {
    /// Appends `value` in decimal.
    public static func append(_ value: Int64, to out: inout [UInt8]) {
        if value < 0 {
            out.append(0x2D)
            // The magnitude of Int64.min does not fit an Int64; go through UInt64.
            append(UInt64(bitPattern: 0 &- value), to: &out)
        } else {
            append(UInt64(value), to: &out)
        }
    }

    /// Appends `value` in decimal.
    public static func append(_ value: Int, to out: inout [UInt8]) {
        append(Int64(value), to: &out)
    }

    /// Appends `value` in decimal.
    public static func append(_ value: UInt64, to out: inout [UInt8]) {
        if value < 10 {
            out.append(0x30 + UInt8(value))
            return
        }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var rest = value
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            while rest > 0 {
                count += 1
                buffer[20 - count] = 0x30 + UInt8(rest % 10)
                rest /= 10
            }
            out.append(contentsOf: buffer[(20 - count)...])
        }
    }

    /// Appends exactly the text of `value.description` (`14.46`, `0.0`, `-0.5`, `1e-05`).
    ///
    /// Decoded measurements are hundredths (or coarser); for those the digits are produced directly,
    /// which is the same text because `description` prints the shortest digits that read back as the
    /// same `Double`, and for the `Double` nearest to n/100 those are the digits of n/100. Anything
    /// else goes through `description`.
    public static func append(_ value: Double, to out: inout [UInt8]) {
        if value == 0 {
            out.append(contentsOf: value.sign == .minus ? [0x2D, 0x30, 0x2E, 0x30] : [0x30, 0x2E, 0x30])
            return
        }
        let hundredths = (value * 100).rounded()
        guard hundredths.magnitude < 1e15, hundredths / 100 == value else {
            out.append(contentsOf: value.description.utf8)
            return
        }
        var n = Int64(hundredths)
        if n < 0 {
            out.append(0x2D)
            n = -n
        }
        append(n / 100, to: &out)
        out.append(0x2E)
        let fraction = UInt8(n % 100)
        if fraction % 10 == 0 {
            out.append(0x30 + fraction / 10)
        } else {
            out.append(0x30 + fraction / 10)
            out.append(0x30 + fraction % 10)
        }
    }
}
