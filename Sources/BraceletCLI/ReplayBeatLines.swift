import BraceletDecoder

/// Writes replay's beat lines (`{"kind":"rr","t":"2026-10-29T02:11:01.112Z","device":"V2SIM001",
/// "model":"v2","rr_ms":977}`) through a raw pointer with a few fixed-size stores per line: a month
/// holds close to a million beats, which are most of replay's output, and a beat line built from
/// the general pieces (a division per field, a copy loop, a call per number) cost 200 instructions.
///
/// The text is exactly what ``UTCTime/iso8601(unixMilliseconds:)`` and
/// ``BraceletDecoder/CanonicalJSON/write(_:to:)`` give: a day's date is worked out once (beats are
/// in time order, so a day is entered once), the time of day comes from digit tables, and the
/// device part is copied from text made once per device.
struct ReplayBeatLines {
    /// `{"kind":"rr","t":"YYYY-MM-DDT` of the day of the last beat written.
    private var head = RRLineHead()
    /// Unix milliseconds of the start and end of that day: a beat inside them needs no date.
    private var dayStart: Int64 = 0, dayEnd: Int64 = 0
    /// `Z","device":"SERIAL","model":"v2","rr_ms":` of the current device, zero-padded to whole
    /// ``tailChunk``s so that it is copied in fixed-size moves; `tailLength` bytes are the text.
    private var tail: [UInt8] = []
    private var tailLength = 0
    private var tailChunks = 0
    private static let tailChunk = 64
    /// Every pair of digits `00`...`99` as the two bytes of a little-endian `UInt16`.
    private let pairs: [UInt16]
    /// Every three digits `000`...`999` then `}` as the four bytes of a little-endian `UInt32`.
    private let triples: [UInt32]

    init() {
        func digit(_ v: Int) -> UInt32 { UInt32(48 + v % 10) }
        pairs = (0..<100).map { (v: Int) -> UInt16 in UInt16(digit(v / 10) | digit(v) << 8) }
        triples = (0..<1000).map { (v: Int) -> UInt32 in digit(v / 100) | digit(v / 10) << 8 | digit(v) << 16 | 0x7D << 24 }
    }

    /// The room one line needs: its text with the longest `rr_ms`, and the fixed-size stores that
    /// write past the text (overwritten by the next line).
    var lineRoom: Int { RRLineHead.length + 12 + tailChunks * Self.tailChunk + TextBytes.maximumNumberLength + 8 }

    /// Takes the device part `device` (`","device":"SERIAL","model":"v2"`) for the lines that follow.
    mutating func useDevice(_ device: [UInt8]) {
        var text: [UInt8] = [0x5A]
        text += device
        CanonicalJSON.appendLiteral(",\"rr_ms\":", to: &text)
        tailLength = text.count
        tailChunks = (text.count + Self.tailChunk - 1) / Self.tailChunk
        tail = text + [UInt8](repeating: 0, count: tailChunks * Self.tailChunk - text.count)
    }

    /// Writes the lines of `beats` from `start` on while a line starts at or before `limit` (the
    /// caller keeps ``lineRoom`` bytes past it). Returns where the lines end and how many beats
    /// were written.
    mutating func write(_ beats: UnsafeBufferPointer<Beat>, dates: inout DatePrefix, from start: UnsafeMutablePointer<UInt8>,
                        limit: UnsafeMutablePointer<UInt8>) -> (end: UnsafeMutablePointer<UInt8>, written: Int) {
        var p = start
        var written = 0
        let tailChunks = tailChunks, tailLength = tailLength
        pairs.withUnsafeBufferPointer { pairs in
            triples.withUnsafeBufferPointer { triples in
                tail.withUnsafeBytes { tail in
                    guard let pairs = pairs.baseAddress, let triples = triples.baseAddress, let tail = tail.baseAddress else { return }
                    for beat in beats {
                        if p > limit { break }
                        let t = beat.timeMs
                        if t < dayStart || t >= dayEnd { enterDay(of: t, dates: &dates) }
                        // Within a day: at most 86,400,000 ms, so 32-bit arithmetic (divisions by
                        // constants become multiplications).
                        let ms = UInt32(truncatingIfNeeded: t &- dayStart)
                        let second = ms / 1000, milli = ms &- second &* 1000
                        let hour = second / 3600, inHour = second &- hour &* 3600
                        let minute = inHour / 60, sec = inHour &- minute &* 60
                        let out = UnsafeMutableRawPointer(p)
                        out.storeBytes(of: head.text.0, as: UInt64.self)
                        out.storeBytes(of: head.text.1, toByteOffset: 8, as: UInt64.self)
                        out.storeBytes(of: head.text.2, toByteOffset: 16, as: UInt64.self)
                        out.storeBytes(of: head.text.3, toByteOffset: 24, as: UInt64.self)
                        // `HH:MM:SS` in one store, then `.mmm` (the triple's `}` is overwritten).
                        let time = UInt64(pairs[Int(hour)]) | 0x3A << 16 | UInt64(pairs[Int(minute)]) << 24
                            | 0x3A << 40 | UInt64(pairs[Int(sec)]) << 48
                        out.storeBytes(of: time.littleEndian, toByteOffset: RRLineHead.length, as: UInt64.self)
                        out.storeBytes(of: UInt8(0x2E), toByteOffset: RRLineHead.length + 8, as: UInt8.self)
                        out.storeBytes(of: triples[Int(milli)].littleEndian, toByteOffset: RRLineHead.length + 9, as: UInt32.self)
                        let tailStart = out + RRLineHead.length + 12
                        for chunk in 0..<tailChunks {
                            (tailStart + chunk * Self.tailChunk).copyMemory(from: tail + chunk * Self.tailChunk, byteCount: Self.tailChunk)
                        }
                        p = p + RRLineHead.length + 12 + tailLength
                        p = rr(beat.rrMs, p, pairs, triples)
                        written += 1
                    }
                }
            }
        }
        return (p, written)
    }

    /// Takes the day of `t` (Unix milliseconds) for the lines that follow.
    private mutating func enterDay(of t: Int64, dates: inout DatePrefix) {
        let day = t.floorDivided(by: 86_400_000).quotient
        head = RRLineHead(day: day, dates: &dates)
        dayStart = day * 86_400_000
        dayEnd = dayStart + 86_400_000
    }

    /// `rr_ms`'s value and `}\n`: three or four digits (nearly every interval) from the tables, in
    /// one store; anything else as ``BraceletDecoder/CanonicalJSON/write(_:to:)`` writes it.
    @inline(__always)
    private func rr(_ value: Int?, _ p: UnsafeMutablePointer<UInt8>, _ pairs: UnsafePointer<UInt16>,
                    _ triples: UnsafePointer<UInt32>) -> UnsafeMutablePointer<UInt8> {
        let out = UnsafeMutableRawPointer(p)
        if let value, value >= 100, value < 10_000 {
            if value < 1000 {
                out.storeBytes(of: triples[value].littleEndian, as: UInt32.self)
                p[4] = 0x0A
                return p + 5
            }
            let high = value / 100
            let text = UInt64(pairs[high]) | UInt64(pairs[value &- high &* 100]) << 16 | 0x0A7D << 32
            out.storeBytes(of: text.littleEndian, as: UInt64.self)
            return p + 6
        }
        let end = CanonicalJSON.write(value, to: p)
        end[0] = 0x7D; end[1] = 0x0A
        return end + 2
    }
}
