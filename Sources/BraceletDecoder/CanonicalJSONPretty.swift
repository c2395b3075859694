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
    /// Input that is not canonical JSON is laid out byte by byte all the same; it is never read out
    /// of bounds. The layout is ``PrettyWriter``'s, which takes the same bytes in pieces.
    public static func prettyPrinted(_ canonical: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(canonical.count * 2)
        let writer = PrettyWriter(blockSize: 1 << 16) { out.append(contentsOf: $0) }
        canonical.withUnsafeBufferPointer { writer.write($0) }
        writer.finish()
        return out
    }

    /// Lays out canonical JSON handed over in pieces (a document's opening, then each stored or
    /// encoded value, then its closing) exactly as ``prettyPrinted(_:)`` lays out the whole, into
    /// one block that goes to `sink` whenever it is full and at ``finish()``: a document of any size
    /// is printed in big writes with one block of memory.
    ///
    /// A piece may end anywhere, even inside a string or right after an opening bracket.
    public final class PrettyWriter {
        private let capacity: Int
        private let block: UnsafeMutablePointer<UInt8>
        private var used = 0
        private let sink: (UnsafeRawBufferPointer) -> Void
        private var depth = 0
        /// The closing bracket that would make the last opened container empty (0: none pending).
        private var pendingClose: UInt8 = 0
        private var inString = false
        private var escaping = false
        /// A newline and ``indentLevels`` levels of indentation: a line break is a copy of its start.
        private let indentText: UnsafeMutablePointer<UInt8>
        private static let indentLevels = 63
        /// A newline and 31 spaces: a line break up to depth 15 is one store of these 32 bytes.
        private let indent32: SIMD32<UInt8>

        /// A writer with a block of `blockSize` bytes (at least 64) that hands full blocks to `sink`.
        public convenience init(blockSize: Int = 1 << 20, sink: @escaping (UnsafeRawBufferPointer) -> Void) {
            self.init(blockSize: blockSize, depth: 0, sink: sink)
        }

        /// A writer that goes on inside a document at nesting `depth`, as a writer that has laid out
        /// the document's start up to a complete value or a comma at that depth (a `,` given next is
        /// laid out as that writer lays it out). Two of them may lay out the parts of one document
        /// on two threads, the second continuing at the depth where the first stops.
        package init(blockSize: Int = 1 << 20, depth: Int, sink: @escaping (UnsafeRawBufferPointer) -> Void) {
            self.depth = max(0, depth)
            capacity = max(64, blockSize)
            block = .allocate(capacity: capacity)
            indentText = .allocate(capacity: 1 + 2 * Self.indentLevels)
            indentText.initialize(to: Self.newline)
            (indentText + 1).initialize(repeating: Self.space, count: 2 * Self.indentLevels)
            var indent32 = SIMD32<UInt8>(repeating: Self.space)
            indent32[0] = Self.newline
            self.indent32 = indent32
            self.sink = sink
        }

        deinit {
            block.deallocate()
            indentText.deallocate()
        }

        /// Lays out `bytes`, the next piece of canonical JSON.
        public func write(_ bytes: [UInt8]) {
            bytes.withUnsafeBufferPointer { write($0) }
        }

        /// Lays out `piece`, the next piece of canonical JSON.
        ///
        /// The layout state is kept in locals while the piece is read (a class's stored properties
        /// would be reloaded and stored around every byte), and bytes that need no layout (inside a
        /// string, and the digits or letters of a number or literal) are copied as runs.
        public func write(_ piece: UnsafeBufferPointer<UInt8>) {
            guard var p = piece.baseAddress else { return }
            let end = p + piece.count
            var out = block + used
            var depth = self.depth, pendingClose = self.pendingClose, inString = self.inString, escaping = self.escaping
            defer {
                used = out - block
                self.depth = depth
                self.pendingClose = pendingClose
                self.inString = inString
                self.escaping = escaping
            }
            while p < end {
                if inString {
                    // The string through its closing quote, escapes included: eight bytes at a time
                    // up to the first quote or backslash, then byte by byte.
                    var q = escaping ? p : Self.skipPlainString(p, end)
                    while q < end {
                        let byte = q.pointee
                        q += 1
                        if escaping {
                            escaping = false
                        } else if byte == Self.backslash {
                            escaping = true
                        } else if byte == Self.quote {
                            inString = false
                            break
                        }
                    }
                    out = copyRun(p, count: q - p, end: end, to: out)
                    p = q
                    continue
                }
                let byte = p.pointee
                p += 1
                if pendingClose != 0 {
                    let close = pendingClose
                    pendingClose = 0
                    if byte == close {
                        out = put(Self.newline, out)
                        out = lineBreak(depth, out)
                        out = put(close, out)
                        continue
                    }
                    depth += 1
                    out = lineBreak(depth, out)
                }
                switch byte {
                case Self.quote:
                    out = put(byte, out)
                    inString = true
                case UInt8(ascii: "{"):
                    out = put(byte, out)
                    pendingClose = UInt8(ascii: "}")
                case UInt8(ascii: "["):
                    out = put(byte, out)
                    pendingClose = UInt8(ascii: "]")
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth = max(0, depth - 1)
                    out = lineBreak(depth, out)
                    out = put(byte, out)
                case UInt8(ascii: ","):
                    out = put(byte, out)
                    out = lineBreak(depth, out)
                case UInt8(ascii: ":"):
                    if limit - out < 3 { out = flush(out) }
                    out[0] = Self.space
                    out[1] = byte
                    out[2] = Self.space
                    out += 3
                default:
                    // A number or literal: copied up to the next byte that needs layout.
                    var q = p
                    while q < end, !Self.needsLayout(q.pointee) { q += 1 }
                    out = copyRun(p - 1, count: q - p + 1, end: end, to: out)
                    p = q
                }
            }
        }

        /// Hands over what is in the block, the layout going on: for a caller that writes bytes of
        /// its own (laid out elsewhere) into the same output next.
        package func flush() {
            used = flush(block + used) - block
        }

        /// Ends the layout (a container left open at the end breaks its line, as in a whole
        /// document) and hands over what is in the block.
        public func finish() {
            var out = block + used
            if pendingClose != 0 {
                pendingClose = 0
                depth += 1
                out = lineBreak(depth, out)
            }
            used = flush(out) - block
        }

        private var limit: UnsafeMutablePointer<UInt8> { block + capacity }

        /// Hands the block up to `out` to the sink; returns the start of the emptied block.
        private func flush(_ out: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
            if out > block { sink(UnsafeRawBufferPointer(start: block, count: out - block)) }
            return block
        }

        @inline(__always) private func put(_ byte: UInt8, _ out: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
            let out = out == limit ? flush(out) : out
            out.pointee = byte
            return out + 1
        }

        /// A newline and the indentation of `depth`: up to depth 15, one 32-byte store (the bytes
        /// past the indentation are overwritten by what follows or never handed over).
        @inline(__always) private func lineBreak(_ depth: Int, _ out: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
            if depth < 16, limit - out >= 32 {
                UnsafeMutableRawPointer(out).storeBytes(of: indent32, as: SIMD32<UInt8>.self)
                return out + 1 + 2 * depth
            }
            return deepLineBreak(depth, out)
        }

        private func deepLineBreak(_ depth: Int, _ out: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
            if depth <= Self.indentLevels { return copy(indentText, count: 1 + 2 * depth, to: out) }
            var out = copy(indentText, count: 1, to: out)
            var spaces = 2 * depth
            while spaces > 0 {
                let n = min(spaces, 2 * Self.indentLevels)
                out = copy(indentText + 1, count: n, to: out)
                spaces -= n
            }
            return out
        }

        /// Copies a run of `count` bytes of the piece that ends at `end`: a short run (a key, a
        /// number) with one 16-byte load and store when both sides have room for all 16.
        @inline(__always) private func copyRun(_ from: UnsafePointer<UInt8>, count: Int, end: UnsafePointer<UInt8>,
                                               to out: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
            if count <= 16, end - from >= 16, limit - out >= 16 {
                let bytes = UnsafeRawPointer(from).loadUnaligned(as: SIMD16<UInt8>.self)
                UnsafeMutableRawPointer(out).storeBytes(of: bytes, as: SIMD16<UInt8>.self)
                return out + count
            }
            return copy(from, count: count, to: out)
        }

        /// Copies `count` bytes, handing full blocks to the sink on the way.
        @inline(__always) private func copy(_ from: UnsafePointer<UInt8>, count: Int, to out: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
            if count <= limit - out {
                out.update(from: from, count: count)
                return out + count
            }
            return copySpanningBlocks(from, count: count, to: out)
        }

        private func copySpanningBlocks(_ from: UnsafePointer<UInt8>, count: Int, to out: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
            var out = out, done = 0
            while done < count {
                if out == limit { out = flush(out) }
                let n = min(count - done, limit - out)
                out.update(from: from + done, count: n)
                out += n
                done += n
            }
            return out
        }

        /// The first quote or backslash at or after `p`, found eight bytes at a time; when the last
        /// word holds none, the start of the fewer than eight bytes left before `end` (the caller
        /// reads those one by one). Keys and text are mostly plain, so this skips them whole.
        @inline(__always) private static func skipPlainString(_ p: UnsafePointer<UInt8>, _ end: UnsafePointer<UInt8>) -> UnsafePointer<UInt8> {
            var q = p
            while end - q >= 8 {
                let word = UInt64(littleEndian: UnsafeRawPointer(q).loadUnaligned(as: UInt64.self))
                let found = zeroBytes(word ^ 0x2222_2222_2222_2222) | zeroBytes(word ^ 0x5C5C_5C5C_5C5C_5C5C)
                if found != 0 { return q + found.trailingZeroBitCount / 8 }
                q += 8
            }
            return q
        }

        /// The high bit of each zero byte of `x` set; a byte above a zero byte may be flagged too
        /// (the borrow), so only the lowest flag is exact, and that is the one ``skipPlainString``
        /// reads. A byte of 0x80 or above is never flagged.
        @inline(__always) private static func zeroBytes(_ x: UInt64) -> UInt64 {
            (x &- 0x0101_0101_0101_0101) & ~x & 0x8080_8080_8080_8080
        }

        /// Whether a byte outside a string changes the layout (brackets, comma, colon, quote).
        @inline(__always) private static func needsLayout(_ byte: UInt8) -> Bool {
            switch byte {
            case quote, UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: ","), UInt8(ascii: ":"): true
            default: false
            }
        }

        private static let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")
        private static let newline = UInt8(ascii: "\n"), space = UInt8(ascii: " ")
    }
}
