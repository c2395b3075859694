import BraceletDecoder
import BraceletProtocol

extension Store {
    /// Stores beat-to-beat data of `device` in one transaction. Idempotent on (device, time): a beat
    /// the store already has is ignored, and of equal times in `beats` the first wins.
    ///
    /// - Returns: inserted vs already-present counts and the times (Unix seconds, rounded down, in
    ///   time order) of the new beats.
    /// - Throws: ``StoreError/invalidInput(_:)`` for an RR interval beyond 32 bits (nothing is stored).
    public func insertBeats(_ beats: [Beat], device: String, model: DeviceModel?) throws -> InsertReport {
        try write { db in
            let deviceID = try upsertDevice(db, serial: device, model: model)
            return try insertBeats(db, beats, deviceID: deviceID)
        }
    }

    /// Inserts beats inside an open transaction: per hour (see ``BeatChunk``), the new beats are
    /// merged into the stored chunk, which is written back only when something was new.
    func insertBeats(_ db: Database, _ beats: [Beat], deviceID: Int64) throws -> InsertReport {
        var report = InsertReport()
        guard !beats.isEmpty else { return report }
        // Time order; a stable sort keeps the first of equal times first. A file is in order already.
        let inOrder = zip(beats, beats.dropFirst()).allSatisfy { $0.timeMs <= $1.timeMs }
        let sorted = inOrder ? beats
            : beats.enumerated().sorted { ($0.element.timeMs, $0.offset) < ($1.element.timeMs, $1.offset) }.map(\.element)
        let select = try db.prepare("SELECT beats FROM beat_chunks WHERE device_id = ?1 AND start_ms = ?2")
        let upsert = try db.prepare("""
            INSERT INTO beat_chunks (device_id, start_ms, beats) VALUES (?1, ?2, ?3)
            ON CONFLICT (device_id, start_ms) DO UPDATE SET beats = excluded.beats
            """)
        report.insertedInstants.reserveCapacity(beats.count)
        var chunk = BeatChunk.Writer()
        var first = 0
        while first < sorted.count {
            let start = BeatChunk.start(ofMs: sorted[first].timeMs)
            var end = first + 1
            while end < sorted.count && sorted[end].timeMs - start < BeatChunk.spanMs { end += 1 }
            let stored = try storedChunk(select, deviceID: deviceID, start: start)
            chunk.reset(records: stored.count + end - first)
            var next = 0, added = 0
            var lastAdded = Int64.min
            for beat in sorted[first..<end] {
                let interval = try BeatChunk.storedInterval(beat.rrMs, timeMs: beat.timeMs)
                while next < stored.count && stored[next].timeMs < beat.timeMs {
                    chunk.append(offset: stored[next].timeMs - start, interval: stored[next].interval)
                    next += 1
                }
                if (next < stored.count && stored[next].timeMs == beat.timeMs) || beat.timeMs == lastAdded {
                    report.alreadyPresent += 1
                    continue
                }
                chunk.append(offset: beat.timeMs - start, interval: interval)
                lastAdded = beat.timeMs
                added += 1
                report.insertedInstants.append(beat.timeMs.floorDivided(by: 1_000).quotient)
            }
            for record in stored[next...] {
                chunk.append(offset: record.timeMs - start, interval: record.interval)
            }
            if added > 0 {
                upsert.bind(deviceID, at: 1)
                upsert.bind(start, at: 2)
                upsert.bind(chunk.bytes, at: 3)
                try upsert.run()
            }
            report.inserted += added
            first = end
        }
        return report
    }

    /// The records of the stored chunk of the hour at `start` (empty when none).
    private func storedChunk(_ select: Statement, deviceID: Int64, start: Int64) throws -> [(timeMs: Int64, interval: Int32)] {
        select.bind(deviceID, at: 1)
        select.bind(start, at: 2)
        defer { select.reset() }
        guard try select.step() else { return [] }
        guard let records = select.withBytes(at: 0, { BeatChunk.records($0, start: start) }) ?? nil else {
            throw damagedChunk(start: start)
        }
        return records
    }

    private func damagedChunk(start: Int64) -> StoreError {
        StoreError.corrupt(path: path, detail: "the stored beats of the hour starting at \(start) ms are not whole records in time order; run `bracelet db check --db \(path)`")
    }

    /// The beats of `device` with time in `[fromMs, toMs)` (Unix milliseconds), ordered by time.
    public func beats(device: String, fromMs: Int64, toMs: Int64) throws -> [Beat] {
        try locked { db in
            guard let deviceID = try deviceID(db, serial: device), fromMs < toMs else { return [] }
            let statement = try db.prepare("""
                SELECT start_ms, beats FROM beat_chunks WHERE device_id = ?1 AND start_ms >= ?2 AND start_ms < ?3 ORDER BY start_ms
                """)
            statement.bind(deviceID, at: 1)
            // The chunk holding `fromMs` starts up to an hour before it.
            statement.bind(fromMs > Int64.min + BeatChunk.spanMs ? BeatChunk.start(ofMs: fromMs) : Int64.min, at: 2)
            statement.bind(toMs, at: 3)
            var result: [Beat] = []
            // Sized once from the chunks' lengths (read from the row headers, not the chunks): an
            // array grown by doubling holds up to twice the beats of a recompute's span.
            let size = try db.prepare("""
                SELECT sum(length(beats)) FROM beat_chunks WHERE device_id = ?1 AND start_ms >= ?2 AND start_ms < ?3
                """)
            size.bind(deviceID, at: 1)
            size.bind(fromMs > Int64.min + BeatChunk.spanMs ? BeatChunk.start(ofMs: fromMs) : Int64.min, at: 2)
            size.bind(toMs, at: 3)
            if try size.step(), let bytes = size.int64(at: 0) { result.reserveCapacity(Int(bytes) / BeatChunk.recordSize) }
            size.reset()
            while try statement.step() {
                let start = statement.int64(at: 0) ?? 0
                guard let records = statement.withBytes(at: 1, { BeatChunk.records($0, start: start) }) ?? nil else {
                    throw damagedChunk(start: start)
                }
                for record in records where record.timeMs >= fromMs && record.timeMs < toMs {
                    result.append(BeatChunk.beat(timeMs: record.timeMs, interval: record.interval))
                }
            }
            return result
        }
    }
}
