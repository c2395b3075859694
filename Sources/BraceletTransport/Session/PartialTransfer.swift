/// A file being received: its bytes so far and which of them arrived. Kept across link drops so a
/// transfer resumes from the first byte it does not hold. Holds one file (at most 16 MiB of bytes
/// and a bit per byte), never a whole backlog.
struct PartialTransfer {
    let size: Int
    var bytes: [UInt8]
    /// One bit per byte of the file: set when the byte arrived.
    private var have: [UInt64]
    /// Every byte before this offset has arrived.
    private(set) var contiguous = 0
    /// Bytes held.
    private(set) var received = 0
    /// Whether the header was checked against the announced size.
    var headerChecked = false

    init(size: Int) {
        self.size = size
        bytes = [UInt8](repeating: 0, count: size)
        have = [UInt64](repeating: 0, count: (size + 63) / 64)
    }

    var isComplete: Bool { received == size }

    private func holds(_ at: Int) -> Bool { have[at >> 6] & (1 << UInt64(at & 63)) != 0 }

    /// The first missing range, at most `limit` bytes long, ending before the next byte held.
    func firstGap(limit: Int) -> Range<Int>? {
        guard contiguous < size else { return nil }
        var end = contiguous
        let cap = min(size, contiguous + limit)
        while end < cap && !holds(end) { end += 1 }
        return contiguous..<end
    }

    /// Stores payload bytes at `offset`; returns how many were new and whether any lay past the end.
    mutating func store(_ payload: [UInt8], at offset: Int) -> (new: Int, pastEnd: Bool) {
        var new = 0
        var pastEnd = false
        for (i, b) in payload.enumerated() {
            let at = offset + i
            guard at < size else { pastEnd = true; break }
            if !holds(at) {
                have[at >> 6] |= 1 << UInt64(at & 63)
                bytes[at] = b
                new += 1
            }
        }
        received += new
        while contiguous < size && holds(contiguous) { contiguous += 1 }
        return (new, pastEnd)
    }
}
