import CJSONLayout

/// Finding a byte string inside canonical JSON that is at hand as bytes (a stored summary, an outbox
/// payload), without making a `String` of it.
package enum ByteSearch {
    /// The offset of the first occurrence of `needle` in `haystack`, `nil` when there is none (an
    /// empty needle is at 0). glibc's `memmem`: for needles of a few bytes it moves by shifts looked
    /// up from pairs of bytes, so JSON full of quotes and digits is crossed at memory speed, where a
    /// shift table of single bytes (Horspool) moved a few bytes at a time (Foundation's
    /// `Data.range(of:)` compares byte by byte through generic code: a tenth of `summarize --db`).
    package static func firstOffset(of needle: [UInt8], in haystack: UnsafeRawBufferPointer) -> Int? {
        guard !needle.isEmpty else { return 0 }
        guard needle.count <= haystack.count, let h = haystack.baseAddress else { return nil }
        return needle.withUnsafeBytes { n -> Int? in
            guard let found = bracelet_find_bytes(h, haystack.count, n.baseAddress, n.count) else { return nil }
            return UnsafeRawPointer(found) - h
        }
    }
}
