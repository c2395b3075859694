import CJSONLayout

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
        private var state: bracelet_layout
        private let sink: (UnsafeRawBufferPointer) -> Void

        /// A writer with a block of `blockSize` bytes (at least 64) that hands full blocks to `sink`.
        public convenience init(blockSize: Int = 1 << 20, sink: @escaping (UnsafeRawBufferPointer) -> Void) {
            self.init(blockSize: blockSize, depth: 0, sink: sink)
        }

        /// A writer that goes on inside a document at nesting `depth`, as a writer that has laid out
        /// the document's start up to a complete value or a comma at that depth (a `,` given next is
        /// laid out as that writer lays it out). Two of them may lay out the parts of one document
        /// on two threads, the second continuing at the depth where the first stops.
        package init(blockSize: Int = 1 << 20, depth: Int, sink: @escaping (UnsafeRawBufferPointer) -> Void) {
            let capacity = max(64, blockSize)
            state = bracelet_layout(block: .allocate(capacity: capacity), capacity: capacity, used: 0,
                                    sink: { context, bytes, count in
                                        guard let context else { return }
                                        Unmanaged<PrettyWriter>.fromOpaque(context).takeUnretainedValue()
                                            .sink(UnsafeRawBufferPointer(start: bytes, count: count))
                                    },
                                    context: nil, depth: Int64(max(0, depth)), pending_close: 0, in_string: 0, escaping: 0)
            self.sink = sink
        }

        deinit {
            state.block.deallocate()
        }

        /// Lays out `bytes`, the next piece of canonical JSON.
        public func write(_ bytes: [UInt8]) {
            bytes.withUnsafeBufferPointer { write($0) }
        }

        /// Lays out `piece`, the next piece of canonical JSON (CJSONLayout: 64 bytes classified at a
        /// time, only brackets, commas and colons outside strings given layout).
        public func write(_ piece: UnsafeBufferPointer<UInt8>) {
            guard let base = piece.baseAddress else { return }
            withState { bracelet_layout_write($0, base, piece.count) }
        }

        /// Hands over what is in the block, the layout going on: for a caller that writes bytes of
        /// its own (laid out elsewhere) into the same output next.
        package func flush() {
            withState { bracelet_layout_flush($0) }
        }

        /// Ends the layout (a container left open at the end breaks its line, as in a whole
        /// document) and hands over what is in the block.
        public func finish() {
            withState { bracelet_layout_finish($0) }
        }

        /// Runs `body` on the C state with this writer as the sink's context (set per call: the
        /// context is an unretained reference, valid while this call holds `self`).
        private func withState(_ body: (UnsafeMutablePointer<bracelet_layout>) -> Void) {
            state.context = Unmanaged.passUnretained(self).toOpaque()
            withUnsafeMutablePointer(to: &state) { body($0) }
        }
    }
}
