import BraceletProtocol

/// Reads and writes the records of a beats (RR interval) file.
public enum BeatsCodec {
    /// Decodes `records` (whole 8-byte records) against the file's base time. A beat whose RR field
    /// holds the gap sentinel gets `rrMs == nil`.
    public static func decode(_ records: UnsafeRawBufferPointer, baseTime: Int64, into beats: inout [Beat]) {
        let n = records.count / BeatRecordLayout.size
        beats.reserveCapacity(beats.count + n)
        guard let base = records.baseAddress else { return }
        let baseMs = baseTime * 1000
        for i in 0..<n {
            let p = base + i * BeatRecordLayout.size
            let offset = UInt32(littleEndian: p.loadUnaligned(as: UInt32.self))
            let rr = UInt16(littleEndian: p.loadUnaligned(fromByteOffset: 4, as: UInt16.self))
            beats.append(Beat(timeMs: baseMs + Int64(offset), rrMs: rr == BeatRecordLayout.gapSentinel ? nil : Int(rr)))
        }
    }

    /// A sealed beats file; beat times must lie within 2^32 ms (49 days) after `baseTime`.
    public static func sealedFile(model: DeviceModel, serial: String, timeZoneOffsetMinutes: Int, baseTime: Int64,
                                  beats: [Beat]) -> [UInt8] {
        var records = [UInt8]()
        records.reserveCapacity(beats.count * BeatRecordLayout.size)
        for beat in beats {
            records.appendLittleEndian(UInt32(clamping: beat.timeMs - baseTime * 1000))
            records.appendLittleEndian(beat.rrMs.map { UInt16(clamping: $0) } ?? BeatRecordLayout.gapSentinel)
            records.append(0)
            records.append(0)
        }
        let header = FileHeader(kind: .beats, model: model, serial: serial, baseTime: baseTime,
                                timeZoneOffsetMinutes: timeZoneOffsetMinutes, intervalSeconds: 0, recordCount: beats.count)
        return SealedFile.seal(header: header, records: records)
    }
}
