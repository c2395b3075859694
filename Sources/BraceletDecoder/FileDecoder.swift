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
    /// Beats decoded per call of a streaming beats decode: 32 KiB of ``Beat``s, which stay in cache.
    public static let beatsPerBatch = 2048

    /// Decodes a sealed metrics file into `columns`, one batch at a time, calling `body` after each
    /// batch. Records before a truncation are still delivered; the fault is in the result.
    public static func decodeMetrics(_ file: UnsafeRawBufferPointer, columns: MetricsColumns,
                                     _ body: (MetricsColumns) throws -> Void) throws -> DecodedFileSummary {
        try decodeMetricsBatches(file, columns: columns) { _, batch in try body(batch) }
    }

    /// Like ``decodeMetrics(_:columns:_:)``, and `body` gets the file's header with each batch.
    public static func decodeMetricsBatches(_ file: UnsafeRawBufferPointer, columns: MetricsColumns,
                                            _ body: (FileHeader, MetricsColumns) throws -> Void) throws -> DecodedFileSummary {
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
            try body(header, columns)
            offset += used
            index += columns.count
        }
        return DecodedFileSummary(header: header, records: index, faults: sealed.faults)
    }

    /// Decodes a sealed beats file.
    public static func decodeBeats(_ file: UnsafeRawBufferPointer) throws(FileFormatError) -> (beats: [Beat], summary: DecodedFileSummary) {
        let sealed = try inspectBeats(file)
        var beats: [Beat] = []
        BeatsCodec.decode(UnsafeRawBufferPointer(rebasing: file[sealed.recordBytes]), baseTime: sealed.header.baseTime, into: &beats)
        return (beats, DecodedFileSummary(header: sealed.header, records: beats.count, faults: sealed.faults))
    }

    /// Checks a sealed beats file (header, length, CRC) without decoding its records: where they are
    /// and what is wrong with the file. Throws when it is not a beats file at all.
    public static func inspectBeats(_ file: UnsafeRawBufferPointer) throws(FileFormatError) -> SealedFile {
        let sealed = try SealedFile(bytes: file)
        guard sealed.header.kind == .beats else { throw .badMagic(found: Array(file[0..<4])) }
        return sealed
    }

    /// Decodes the records of a beats file that ``inspectBeats(_:)`` accepted, ``beatsPerBatch`` at a
    /// time into one reused array, calling `body` with each batch: memory stays flat however long the file.
    public static func decodeBeats(_ file: UnsafeRawBufferPointer, inspected sealed: SealedFile, _ body: ([Beat]) throws -> Void) rethrows {
        var batch: [Beat] = []
        batch.reserveCapacity(beatsPerBatch)
        let step = beatsPerBatch * BeatRecordLayout.size
        var offset = sealed.recordBytes.lowerBound
        while offset < sealed.recordBytes.upperBound {
            let end = min(offset + step, sealed.recordBytes.upperBound)
            batch.removeAll(keepingCapacity: true)
            BeatsCodec.decode(UnsafeRawBufferPointer(rebasing: file[offset..<end]), baseTime: sealed.header.baseTime, into: &batch)
            try body(batch)
            offset = end
        }
    }
}
