import BraceletDecoder

/// How beats are stored: packed, one row of `beat_chunks` per device and UTC hour, instead of a row
/// per beat.
///
/// A night holds tens of thousands of beats; as rows, inserting them was the largest cost of an
/// ingest and checking them (a row check each) of every recomputation. A chunk holds the hour's
/// beats in time order, 6 bytes a beat, little-endian like the bracelet's own records:
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 3 | unsigned: milliseconds since the chunk's `start_ms` (below ``spanMs``, which 22 bits hold) |
/// | 3 | 3 | signed (two's complement): RR interval in ms; -2^23 = none (first beat after a gap) |
///
/// Beats are most of a database (a V2 day: about 70 000 beats against 1 440 slots): 6 bytes a
/// beat instead of the 8 of the first layout (a 4-byte offset and a 4-byte interval, see
/// ``legacyRecordSize``) are 55 kB less per day.
///
/// Times are unique within a chunk (the first delivery of a time wins, as with any row). The view
/// `beats (device_id, time_ms, rr_ms)` shows the same beats as rows, in plain SQL, for tools.
enum BeatChunk {
    /// The time a chunk covers: one hour, in milliseconds, starting on a whole UTC hour.
    static let spanMs: Int64 = 3_600_000
    /// Bytes per beat.
    static let recordSize = 6
    /// Bytes per beat of the first layout (migration 7 wrote it; a later migration narrows it).
    static let legacyRecordSize = 8
    /// The stored RR of a beat without one.
    static let noInterval: Int32 = -(1 << 23)

    /// The start of the chunk holding time `ms` (floor to the hour, also before 1970).
    static func start(ofMs ms: Int64) -> Int64 {
        let remainder = ms % spanMs
        return remainder < 0 ? ms - remainder - spanMs : ms - remainder
    }

    /// The stored form of `rr`; an interval that 24 bits cannot hold (more than 2 hours 19 minutes
    /// either way) is refused, never cut.
    static func storedInterval(_ rr: Int?, timeMs: Int64) throws -> Int32 {
        guard let rr else { return noInterval }
        guard rr > Int(noInterval), rr < 1 << 23, let stored = Int32(exactly: rr) else {
            throw StoreError.invalidInput("the beat at \(timeMs) ms has an RR interval of \(rr) ms, which no heart produces; check the input.")
        }
        return stored
    }

    /// The word whose low 6 bytes (little-endian) are the record of `offset` (below ``spanMs``) and
    /// `interval` (from ``storedInterval(_:timeMs:)``): offset in bits 0-23, interval in 24-47.
    static func word(offset: Int64, interval: Int32) -> UInt64 {
        UInt64(UInt32(truncatingIfNeeded: offset) & 0xFF_FFFF) | UInt64(UInt32(bitPattern: interval) & 0xFF_FFFF) << 24
    }

    /// A chunk's bytes written a record at a time into storage sized once for the most records it
    /// can get, for inserting many beats: a record is one 8-byte store of its word (the next record
    /// overwrites the 2 bytes past it), where an append of 6 bytes cost about 80 instructions, a
    /// third of storing a beat in `ingest`.
    struct Writer {
        /// The records written so far, then room for the rest and 2 bytes for the last word.
        private var storage: [UInt8] = []
        /// Bytes of the records written.
        private(set) var count = 0

        /// Forgets what was written and makes room for `records` records.
        mutating func reset(records: Int) {
            count = 0
            let needed = records * recordSize + 2
            if storage.count < needed { storage = [UInt8](repeating: 0, count: needed) }
        }

        /// Writes one record (see ``BeatChunk/word(offset:interval:)``); at most as many as
        /// the last ``reset(records:)`` made room for.
        mutating func append(offset: Int64, interval: Int32) {
            let at = count
            precondition(at + 8 <= storage.count, "more beat records than the chunk writer was reset for")
            storage.withUnsafeMutableBytes { $0.storeBytes(of: word(offset: offset, interval: interval).littleEndian, toByteOffset: at, as: UInt64.self) }
            count += recordSize
        }

        /// The records written, as the chunk's stored bytes.
        var bytes: [UInt8] { Array(storage[..<count]) }
    }

    /// Appends one record of the first layout (8 bytes: what migration 7 packs old rows into).
    static func appendLegacy(offset: Int64, interval: Int32, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: offset).littleEndian) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: (interval == noInterval ? Int32.min : interval).littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// A chunk of the first layout in today's, or `nil` when it is not whole 8-byte records or an
    /// interval does not fit 24 bits (then it is left as it is, never cut).
    static func narrowed(_ legacy: UnsafeRawBufferPointer) -> [UInt8]? {
        guard legacy.count % legacyRecordSize == 0 else { return nil }
        var chunk = Writer()
        chunk.reset(records: legacy.count / legacyRecordSize)
        for at in stride(from: 0, to: legacy.count, by: legacyRecordSize) {
            let offset = UInt32(littleEndian: legacy.loadUnaligned(fromByteOffset: at, as: UInt32.self))
            let old = Int32(littleEndian: legacy.loadUnaligned(fromByteOffset: at + 4, as: Int32.self))
            guard Int64(offset) < spanMs else { return nil }
            let interval: Int32
            if old == Int32.min { interval = noInterval } else {
                guard old > noInterval, old < 1 << 23 else { return nil }
                interval = old
            }
            chunk.append(offset: Int64(offset), interval: interval)
        }
        return chunk.bytes
    }

    /// The records of a stored chunk as (time, stored interval) pairs, after checking its shape: a
    /// length that is not whole records, an offset outside the hour or times out of order mean the
    /// row was damaged (the row check says so too; this keeps a reader from misreading it first).
    static func records(_ bytes: UnsafeRawBufferPointer, start: Int64) -> [(timeMs: Int64, interval: Int32)]? {
        guard bytes.count % recordSize == 0 else { return nil }
        var result: [(timeMs: Int64, interval: Int32)] = []
        result.reserveCapacity(bytes.count / recordSize)
        var previous: Int64 = -1
        for at in stride(from: 0, to: bytes.count, by: recordSize) {
            let offset = Int64(bytes[at]) | Int64(bytes[at + 1]) << 8 | Int64(bytes[at + 2]) << 16
            guard offset < spanMs, offset > previous else { return nil }
            previous = offset
            // The 24-bit interval, sign-extended.
            let raw = UInt32(bytes[at + 3]) | UInt32(bytes[at + 4]) << 8 | UInt32(bytes[at + 5]) << 16
            result.append((start + offset, Int32(bitPattern: raw << 8) >> 8))
        }
        return result
    }

    /// The beat of a stored record.
    static func beat(timeMs: Int64, interval: Int32) -> Beat {
        Beat(timeMs: timeMs, rrMs: interval == noInterval ? nil : Int(interval))
    }
}
