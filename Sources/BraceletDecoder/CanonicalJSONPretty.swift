extension CanonicalJSON {
    /// `canonical` (bytes this writer produced: no whitespace outside strings) laid out the way
    /// Foundation's `JSONEncoder` lays out the same value with `[.prettyPrinted, .sortedKeys,
    /// .withoutEscapingSlashes]`: two spaces per level, `"key" : value`, one element per line, an
    /// empty array or object as `[`, an empty line and `]`. Numbers are already in that encoder's
    /// form. Keys keep the canonical order, which is that encoder's (byte) order unless two keys of
    /// an object first differ at digits of different length (`a9`, `a10`) or at an upper-case
    /// against a lower-case letter that sort apart case-insensitively (`Ab`, `a9`); no summary or
    /// sleep-session key does, so stored summaries print as `summarize` prints a freshly computed
    /// document, without decoding them (pinned by the integration tests on the bundled captures).
    ///
    /// Two passes over the bytes (size, then write), no per-value allocation. Input that is not
    /// canonical JSON is laid out byte by byte all the same; it is never read out of bounds.
    public static func prettyPrinted(_ canonical: [UInt8]) -> [UInt8] {
        canonical.withUnsafeBufferPointer { input in
            let size = layOut(input, into: nil)
            return [UInt8](unsafeUninitializedCapacity: size) { output, count in
                count = layOut(input, into: output.baseAddress)
            }
        }
    }

    /// Writes the pretty layout of `input` to `output` (when given) and returns its length.
    private static func layOut(_ input: UnsafeBufferPointer<UInt8>, into output: UnsafeMutablePointer<UInt8>?) -> Int {
        let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\"), newline = UInt8(ascii: "\n"), space = UInt8(ascii: " ")
        var at = 0
        @inline(__always) func put(_ byte: UInt8) {
            output?[at] = byte
            at += 1
        }
        @inline(__always) func lineBreak(depth: Int) {
            put(newline)
            if let output { (output + at).initialize(repeating: space, count: 2 * depth) }
            at += 2 * depth
        }
        var depth = 0
        var i = 0
        let n = input.count
        while i < n {
            let byte = input[i]
            switch byte {
            case quote:
                // Copies the string through its closing quote, escapes included.
                var j = i + 1
                while j < n, input[j] != quote { j += input[j] == backslash ? 2 : 1 }
                let end = min(j + 1, n)
                if let output, let base = input.baseAddress { (output + at).initialize(from: base + i, count: end - i) }
                at += end - i
                i = end
                continue
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                put(byte)
                let close = byte == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
                if i + 1 < n, input[i + 1] == close {
                    put(newline)
                    lineBreak(depth: depth)
                    put(close)
                    i += 2
                    continue
                }
                depth += 1
                lineBreak(depth: depth)
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth = max(0, depth - 1)
                lineBreak(depth: depth)
                put(byte)
            case UInt8(ascii: ","):
                put(byte)
                lineBreak(depth: depth)
            case UInt8(ascii: ":"):
                put(space)
                put(byte)
                put(space)
            default:
                put(byte)
            }
            i += 1
        }
        return at
    }
}
