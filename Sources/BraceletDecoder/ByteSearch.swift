import Glibc

/// Finding a byte string inside canonical JSON that is at hand as bytes (a stored summary, an outbox
/// payload), without making a `String` of it.
package enum ByteSearch {
    /// The offset of the first occurrence of `needle` in `haystack`, `nil` when there is none (an
    /// empty needle is at 0). Horspool's search: the last byte of each window says how far the
    /// needle can move, so most bytes are never looked at (Foundation's `Data.range(of:)` compares
    /// byte by byte through generic code: a tenth of `summarize --db` for a month of summaries).
    package static func firstOffset(of needle: [UInt8], in haystack: UnsafeRawBufferPointer) -> Int? {
        let m = needle.count
        guard m > 0 else { return 0 }
        guard m <= haystack.count, let h = haystack.baseAddress else { return nil }
        var skip = [Int](repeating: m, count: 256)
        for (i, byte) in needle.dropLast().enumerated() { skip[Int(byte)] = m - 1 - i }
        return needle.withUnsafeBytes { n in
            skip.withUnsafeBufferPointer { skip in
                guard let nb = n.baseAddress else { return nil }
                let lastByte = n[m - 1]
                var i = 0
                while i <= haystack.count - m {
                    let byte = haystack[i + m - 1]
                    if byte == lastByte, memcmp(h + i, nb, m - 1) == 0 { return i }
                    i += skip[Int(byte)]
                }
                return nil
            }
        }
    }
}
