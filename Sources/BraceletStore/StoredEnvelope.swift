import BraceletDecoder

/// The outbox envelope as the outbox keeps it: with `"summary":null` where the summary goes, the
/// summary itself kept once, compressed, in `documents` under its content hash (the summary row
/// refers to the same document). Reading an entry puts the document back in place, so what a sink
/// sends is byte for byte the envelope the canonical writer made.
///
/// The layout is the canonical writer's: sorted keys, so the header fields (`content_hash`,
/// `device`, `key`, `kind`, `local_date`, a session's `start` and `stop`) come first, then
/// `"summary":` and the summary's canonical bytes, then `"version":N}`. The first `,"summary":` is
/// the envelope's own key: before it lie only strings, in which an unescaped `"` cannot occur.
enum StoredEnvelope {
    private static let summaryKey = Array(#","summary":"#.utf8)
    private static let versionKey = Array(#","version":"#.utf8)
    /// What stands for the summary in a stored envelope.
    static let reference = Array("null".utf8)

    /// Where the summary's bytes lie in `payload`, an envelope of the layout above; `nil` when it
    /// is not in that layout.
    static func summaryRange(in payload: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        guard let at = ByteSearch.firstOffset(of: summaryKey, in: UnsafeRawBufferPointer(payload)) else { return nil }
        let start = at + summaryKey.count
        // The tail: ,"version":<digits>}
        var end = payload.count - 1
        guard end > start, payload[end] == UInt8(ascii: "}") else { return nil }
        while end > start, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(payload[end - 1]) { end -= 1 }
        guard end - versionKey.count >= start, payload[(end - versionKey.count)..<end].elementsEqual(versionKey) else { return nil }
        return start..<(end - versionKey.count)
    }

    /// `payload` with its summary replaced by the reference, and the summary; `nil` when `payload`
    /// is not in the layout above.
    static func split(_ payload: UnsafeBufferPointer<UInt8>) -> (stored: [UInt8], summary: ArraySlice<UInt8>)? {
        guard let range = summaryRange(in: payload) else { return nil }
        let summary = Array(payload)[range]
        return (Array(payload[..<range.lowerBound]) + reference + Array(payload[range.upperBound...]), summary)
    }

    /// The envelope with `summary` in place of the reference; `nil` when `stored` does not hold
    /// the reference (an envelope written whole, kept as it was).
    static func resolve(_ stored: UnsafeBufferPointer<UInt8>, summary: UnsafeRawBufferPointer) -> [UInt8]? {
        guard let range = summaryRange(in: stored), stored[range].elementsEqual(reference) else { return nil }
        var envelope: [UInt8] = []
        envelope.reserveCapacity(stored.count - reference.count + summary.count)
        envelope.append(contentsOf: stored[..<range.lowerBound])
        envelope.append(contentsOf: summary)
        envelope.append(contentsOf: stored[range.upperBound...])
        return envelope
    }
}
