import BraceletDecoder

/// How beats are stored: packed, one row of `beat_chunks` per device and UTC hour, instead of a row
/// per beat.
///
/// A night holds tens of thousands of beats; as rows, inserting them was the largest cost of an
/// ingest and checking them (a row check each) of every recomputation. A chunk holds the hour's
/// beats in time order, 8 bytes a beat, little-endian like the bracelet's own records:
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 4 | unsigned: milliseconds since the chunk's `start_ms` (below ``spanMs``) |
/// | 4 | 4 | signed: RR interval in ms; `Int32.min` = none (first beat after a gap) |
///
/// Times are unique within a chunk (the first delivery of a time wins, as with any row). The view
/// `beats (device_id, time_ms, rr_ms)` shows the same beats as rows, in plain SQL, for tools.
enum BeatChunk {
    /// The time a chunk covers: one hour, in milliseconds, starting on a whole UTC hour.
    static let spanMs: Int64 = 3_600_000
    /// Bytes per beat.
    static let recordSize = 8
    /// The stored RR of a beat without one.
    static let noInterval = Int32.min

    /// The start of the chunk holding time `ms` (floor to the hour, also before 1970).
    static func start(ofMs ms: Int64) -> Int64 {
        let remainder = ms % spanMs
        return remainder < 0 ? ms - remainder - spanMs : ms - remainder
    }

    /// The stored form of `rr`; an interval that 32 bits cannot hold is refused, never cut.
    static func storedInterval(_ rr: Int?, timeMs: Int64) throws -> Int32 {
        guard let rr else { return noInterval }
        guard let stored = Int32(exactly: rr), stored != noInterval else {
            throw StoreError.invalidInput("the beat at \(timeMs) ms has an RR interval of \(rr) ms, which no heart produces; check the input.")
        }
        return stored
    }

    /// Appends one record to `bytes`.
    static func append(offset: Int64, interval: Int32, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: offset).littleEndian) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: interval.littleEndian) { bytes.append(contentsOf: $0) }
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
            let offset = Int64(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self)))
            guard offset < spanMs, offset > previous else { return nil }
            previous = offset
            result.append((start + offset, Int32(littleEndian: bytes.loadUnaligned(fromByteOffset: at + 4, as: Int32.self))))
        }
        return result
    }

    /// The beat of a stored record.
    static func beat(timeMs: Int64, interval: Int32) -> Beat {
        Beat(timeMs: timeMs, rrMs: interval == noInterval ? nil : Int(interval))
    }
}
