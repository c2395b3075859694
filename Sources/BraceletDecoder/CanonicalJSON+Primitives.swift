extension CanonicalJSON {
    // The byte-level pieces the writer is made of. ``write(_:into:)`` writes trees with them, and
    // writers of JSON Lines records with a fixed key order (replay's and listen's samples, a million
    // lines a month) write their records with them directly: keys as pre-escaped literals, values
    // through these functions, so `null`, integers and string escapes have one spelling everywhere.
    // Each has an array form and a raw-pointer form (the caller guarantees the room: a literal's
    // length, ``TextBytes/maximumNumberLength`` for a number or `null`).

    /// Appends a literal that is already JSON (a key with its quotes and colon, punctuation).
    @inlinable
    public static func appendLiteral(_ text: StaticString, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Writes a literal that is already JSON at `p`; returns the position after it.
    @inlinable
    public static func writeLiteral(_ text: StaticString, to p: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        UnsafeMutableRawPointer(p).copyMemory(from: text.utf8Start, byteCount: text.utf8CodeUnitCount)
        return p + text.utf8CodeUnitCount
    }

    /// Appends `null`: a value that is missing is `null` (or no key), never 0.
    @inlinable
    public static func appendNull(to out: inout [UInt8]) {
        appendLiteral("null", to: &out)
    }

    /// Appends `value` in decimal, or `null` when it is missing.
    @inlinable
    public static func append(_ value: Int64?, to out: inout [UInt8]) {
        if let value { TextBytes.append(value, to: &out) } else { appendNull(to: &out) }
    }

    /// Writes `value` in decimal at `p`, or `null` when it is missing; returns the position after it.
    @inlinable @inline(__always)
    public static func write(_ value: Int?, to p: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        if let value { return TextBytes.write(Int64(value), to: p) }
        return writeLiteral("null", to: p)
    }

    /// Writes `value` as its `description` (`36.5`, `36.0`, `1e-05`) at `p`, or `null` when it is
    /// missing; returns the position after it. This is the number form of JSON Lines records, which
    /// keep the `.0` of a whole value (a reader sees the field is fractional); canonical documents
    /// use ``format(_:codingPath:)`` instead. `value` must be finite (sample values are).
    @inlinable
    public static func writeDescription(_ value: Double?, to p: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        if let value { return TextBytes.write(value, to: p) }
        return writeLiteral("null", to: p)
    }

    /// Appends `value` as its `description` (`36.5`, `36.0`), or `null` when it is missing: the
    /// array form of ``writeDescription(_:to:)``, the number form of JSON Lines records. `value`
    /// must be finite.
    @inlinable
    public static func appendDescription(_ value: Double?, to out: inout [UInt8]) {
        if let value { TextBytes.append(value, to: &out) } else { appendNull(to: &out) }
    }

    /// Appends `value` in canonical number form, the text ``format(_:codingPath:)`` gives (shortest
    /// round-trip digits without a trailing `.0`, `0` for either zero) without a `String` per
    /// number; `null` when it is missing. Throws for NaN and the infinities, naming `key` under
    /// `codingPath`.
    public static func appendNumber(_ value: Double?, to out: inout [UInt8], at codingPath: [any CodingKey], key: String) throws {
        guard let value else { return appendNull(to: &out) }
        guard value.isFinite else { throw nonFinite(value, path: (codingPath.map(\.stringValue) + [key]).joined(separator: ".")) }
        if value == 0 { return out.append(0x30) }
        TextBytes.append(value, to: &out)
        // `description` keeps the `.0` of a whole value; canonical numbers drop it.
        let count = out.count
        if out[count - 2] == 0x2E && out[count - 1] == 0x30 { out.removeLast(2) }
    }

    /// The canonical bytes of one object made of `fields` (written with sorted keys; a key given
    /// twice keeps its last value), for lines whose values are at hand rather than in a type.
    package static func object(_ fields: [(String, Node.Value)]) -> [UInt8] {
        let node = Node(.object)
        for (key, value) in fields { node.child(forKey: key).value = value }
        var out: [UInt8] = []
        write(node, into: &out)
        return out
    }
}
