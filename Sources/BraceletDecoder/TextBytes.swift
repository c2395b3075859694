/// Numbers and times appended as ASCII bytes, for writers that produce millions of records and
/// cannot afford a `String` per value.
///
/// Each number has two forms with the same text: one that appends to an array, and one that writes
/// through a raw pointer and returns the position after the last byte written, for writers that fill
/// a large buffer themselves (the caller guarantees the room: at most ``maximumNumberLength`` bytes).
public enum TextBytes {
    /// The most bytes one number takes: a sign and 19 digits, or a `Double`'s `description`.
    public static let maximumNumberLength = 32

    /// Appends `value` in decimal.
    public static func append(_ value: Int64, to out: inout [UInt8]) {
        appendWithPointer(to: &out) { write(value, to: $0) }
    }

    /// Appends `value` in decimal.
    public static func append(_ value: Int, to out: inout [UInt8]) {
        append(Int64(value), to: &out)
    }

    /// Appends `value` in decimal.
    public static func append(_ value: UInt64, to out: inout [UInt8]) {
        appendWithPointer(to: &out) { write(value, to: $0) }
    }

    /// Appends exactly the text of `value.description` (`14.46`, `0.0`, `-0.5`, `1e-05`).
    public static func append(_ value: Double, to out: inout [UInt8]) {
        appendWithPointer(to: &out) { write(value, to: $0) }
    }

    /// Writes `value` in decimal at `p`; returns the position after it.
    @inlinable @inline(__always)
    public static func write(_ value: Int64, to p: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        if value < 0 {
            p.pointee = 0x2D
            // The magnitude of Int64.min does not fit an Int64; go through UInt64.
            return write(UInt64(bitPattern: 0 &- value), to: p + 1)
        }
        return write(UInt64(value), to: p)
    }

    /// Writes `value` in decimal at `p`; returns the position after it. Up to four digits (most of
    /// the numbers records hold) it is inlined at the call and writes two digits per store.
    @inlinable @inline(__always)
    public static func write(_ value: UInt64, to p: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        if value < 10 {
            p.pointee = 0x30 + UInt8(value)
            return p + 1
        }
        if value < 100 {
            writeTwoDigits(Int(value), to: p)
            return p + 2
        }
        if value < 1000 {
            p.pointee = 0x30 + UInt8(value / 100)
            writeTwoDigits(Int(value % 100), to: p + 1)
            return p + 3
        }
        if value < 10_000 {
            writeTwoDigits(Int(value / 100), to: p)
            writeTwoDigits(Int(value % 100), to: p + 2)
            return p + 4
        }
        return writeLong(value, to: p)
    }

    /// Writes `value` (0...99) as exactly two digits (`07`) at `p`: one 2-byte copy from a table of
    /// every pair, where dividing by ten twice cost a beat line of replay a fifth of its instructions.
    @inlinable @inline(__always)
    public static func writeTwoDigits(_ value: Int, to p: UnsafeMutablePointer<UInt8>) {
        let pairs: StaticString = "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"
        UnsafeMutableRawPointer(p).copyMemory(from: pairs.utf8Start + 2 * value, byteCount: 2)
    }

    /// ``write(_:to:)`` of a number of five or more digits.
    @usableFromInline
    static func writeLong(_ value: UInt64, to p: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        var count = 0
        var rest = value
        while rest > 0 { count += 1; rest /= 10 }
        rest = value
        for i in stride(from: count - 1, through: 0, by: -1) {
            p[i] = 0x30 + UInt8(rest % 10)
            rest /= 10
        }
        return p + count
    }

    /// Writes exactly the text of `value.description` at `p`; returns the position after it.
    ///
    /// Decoded measurements are hundredths (or coarser); for those the digits are produced directly,
    /// which is the same text because `description` prints the shortest digits that read back as the
    /// same `Double`, and for the `Double` nearest to n/100 those are the digits of n/100. Anything
    /// else goes through `description`.
    public static func write(_ value: Double, to p: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        if value == 0 {
            var q = p
            if value.sign == .minus { q.pointee = 0x2D; q += 1 }
            q[0] = 0x30; q[1] = 0x2E; q[2] = 0x30
            return q + 3
        }
        let hundredths = (value * 100).rounded()
        guard hundredths.magnitude < 1e15, hundredths / 100 == value else {
            var q = p
            for byte in value.description.utf8 { q.pointee = byte; q += 1 }
            return q
        }
        var n = Int64(hundredths)
        var q = p
        if n < 0 {
            q.pointee = 0x2D
            q += 1
            n = -n
        }
        return writeHundredths(UInt64(n), to: q)
    }

    /// Writes `n / 100` as `description` prints the `Double` nearest to it (`14.46`, `14.5`, `3.0`);
    /// returns the position after it. The fast path of replay's decimal columns, which hold hundredths.
    @inlinable
    public static func writeHundredths(_ n: UInt64, to p: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        let q = write(n / 100, to: p)
        q.pointee = 0x2E
        let fraction = UInt8(n % 100)
        q[1] = 0x30 + fraction / 10
        if fraction % 10 == 0 { return q + 2 }
        q[2] = 0x30 + fraction % 10
        return q + 3
    }

    /// Runs `body` on room for one number at the end of `out` and keeps what it wrote.
    private static func appendWithPointer(to out: inout [UInt8], _ body: (UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8>) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maximumNumberLength) { room in
            guard let base = room.baseAddress else { return }
            let end = body(base)
            out.append(contentsOf: UnsafeBufferPointer(start: base, count: end - base))
        }
    }
}
