import BraceletProtocol

/// What a sealed file held: its header, and any fault found after the good records were delivered.
public struct DecodedFileSummary: Sendable {
    /// The file's header.
    public var header: FileHeader
    /// Records delivered.
    public var records: Int
    /// Faults (truncation, CRC mismatch, trailing bytes); the records before a fault were delivered.
    public var faults: [FileFormatError]
}

/// Decodes whole sealed files: metrics files batch by batch, beats files into ``Beat``s.
public enum FileDecoder {
    /// Decodes a sealed metrics file into `columns`, one batch at a time, calling `body` after each
    /// batch. Records before a truncation are still delivered; the fault is in the result.
    public static func decodeMetrics(_ file: UnsafeRawBufferPointer, columns: MetricsColumns,
                                     _ body: (MetricsColumns) throws -> Void) throws -> DecodedFileSummary {
        let sealed = try SealedFile(bytes: file)
        let header = sealed.header
        guard header.kind == .metrics else {
            throw FileFormatError.badMagic(found: Array(file[0..<4]))
        }
        let decoder = MetricsDecoder(model: header.model, intervalSeconds: header.intervalSeconds)
        var offset = sealed.recordBytes.lowerBound
        var index = 0
        while offset < sealed.recordBytes.upperBound {
            let chunk = UnsafeRawBufferPointer(rebasing: file[offset..<sealed.recordBytes.upperBound])
            let used = decoder.decode(chunk, firstStart: header.baseTime + Int64(index) * Int64(header.intervalSeconds), into: columns)
            guard used > 0 else { break }
            try body(columns)
            offset += used
            index += columns.count
        }
        return DecodedFileSummary(header: header, records: index, faults: sealed.faults)
    }

    /// Decodes a sealed beats file.
    public static func decodeBeats(_ file: UnsafeRawBufferPointer) throws(FileFormatError) -> (beats: [Beat], summary: DecodedFileSummary) {
        let sealed = try SealedFile(bytes: file)
        guard sealed.header.kind == .beats else { throw .badMagic(found: Array(file[0..<4])) }
        var beats: [Beat] = []
        BeatsCodec.decode(UnsafeRawBufferPointer(rebasing: file[sealed.recordBytes]), baseTime: sealed.header.baseTime, into: &beats)
        return (beats, DecodedFileSummary(header: sealed.header, records: beats.count, faults: sealed.faults))
    }
}
