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

        /// A writer with a block of `blockSize` bytes (at least 64) that hands full blocks to `sink`.
        public init(blockSize: Int = 1 << 20, sink: @escaping (UnsafeRawBufferPointer) -> Void) {
            capacity = max(64, blockSize)
            block = .allocate(capacity: capacity)
            self.sink = sink
        }

        deinit { block.deallocate() }

        /// Lays out `bytes`, the next piece of canonical JSON.
        public func write(_ bytes: [UInt8]) {
            bytes.withUnsafeBufferPointer { write($0) }
        }

        /// Lays out `piece`, the next piece of canonical JSON.
        public func write(_ piece: UnsafeBufferPointer<UInt8>) {
            guard let base = piece.baseAddress else { return }
            let n = piece.count
            var i = 0
            while i < n {
                if inString {
                    // Copies the string through its closing quote, escapes included.
                    var j = i
                    while j < n {
                        let byte = base[j]
                        j += 1
                        if escaping {
                            escaping = false
                        } else if byte == Self.backslash {
                            escaping = true
                        } else if byte == Self.quote {
                            inString = false
                            break
                        }
                    }
                    copy(base + i, count: j - i)
                    i = j
                    continue
                }
                let byte = base[i]
                i += 1
                if pendingClose != 0 {
                    let close = pendingClose
                    pendingClose = 0
                    if byte == close {
                        put(Self.newline)
                        lineBreak()
                        put(close)
                        continue
                    }
                    depth += 1
                    lineBreak()
                }
                switch byte {
                case Self.quote:
                    put(byte)
                    inString = true
                case UInt8(ascii: "{"):
                    put(byte)
                    pendingClose = UInt8(ascii: "}")
                case UInt8(ascii: "["):
                    put(byte)
                    pendingClose = UInt8(ascii: "]")
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth = max(0, depth - 1)
                    lineBreak()
                    put(byte)
                case UInt8(ascii: ","):
                    put(byte)
                    lineBreak()
                case UInt8(ascii: ":"):
                    put(Self.space)
                    put(byte)
                    put(Self.space)
                default:
                    put(byte)
                }
            }
        }

        /// Ends the layout (a container left open at the end breaks its line, as in a whole
        /// document) and hands over what is in the block.
        public func finish() {
            if pendingClose != 0 {
                pendingClose = 0
                depth += 1
                lineBreak()
            }
            flush()
        }

        /// Hands the block to the sink and empties it.
        private func flush() {
            guard used > 0 else { return }
            sink(UnsafeRawBufferPointer(start: block, count: used))
            used = 0
        }

        @inline(__always) private func put(_ byte: UInt8) {
            if used == capacity { flush() }
            block[used] = byte
            used += 1
        }

        /// A newline and the indentation of the current depth.
        private func lineBreak() {
            put(Self.newline)
            var spaces = 2 * depth
            while spaces > 0 {
                if used == capacity { flush() }
                let n = min(spaces, capacity - used)
                (block + used).initialize(repeating: Self.space, count: n)
                used += n
                spaces -= n
            }
        }

        private func copy(_ from: UnsafePointer<UInt8>, count: Int) {
            var done = 0
            while done < count {
                if used == capacity { flush() }
                let n = min(count - done, capacity - used)
                (block + used).update(from: from + done, count: n)
                used += n
                done += n
            }
        }

        private static let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")
        private static let newline = UInt8(ascii: "\n"), space = UInt8(ascii: " ")
    }
}
