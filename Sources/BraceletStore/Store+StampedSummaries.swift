#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// What a stored daily summary was computed from, written beside it so a reader can serve the
/// stored summary instead of recomputing it from the raw rows, and can tell when it may not.
public struct SummaryStamp: Sendable, Equatable {
    /// The settings the summary was computed with, as one text (the writer's fingerprint of its
    /// configuration; equal text means equal settings).
    public var basis: String
    /// The clock of the computation, Unix seconds: a day computed before it ended is "not over"
    /// in its summary, so it is stale once the day ends.
    public var computedAt: Int64

    /// A stamp.
    public init(basis: String, computedAt: Int64) {
        self.basis = basis
        self.computedAt = computedAt
    }
}

/// A stored daily summary with its stamp (nil when it was written without one).
public struct StampedSummary: Sendable, Equatable {
    /// The local date (`YYYY-MM-DD`).
    public var localDate: String
    /// Canonical JSON, checked against its content hash when read.
    public var json: Data
    /// What it was computed from; nil when unknown (written before stamps existed, or by a writer
    /// that gave none).
    public var stamp: SummaryStamp?
}

extension Store {
    /// Marks every sleep session of `device` filed under `localDate` as not current (NULL basis):
    /// call before storing the sessions a recompute of that date produced, so a session it no
    /// longer produces is not served as current. Changes no content, version or outbox entry.
    public func supersedeSleepSessions(device: String, localDate: String) throws {
        try write { db in
            guard let deviceID = try deviceID(db, serial: device) else { return }
            let statement = try db.prepare("UPDATE sleep_sessions SET basis = NULL WHERE device_id = ?1 AND local_date = ?2 AND basis IS NOT NULL")
            statement.bind(deviceID, at: 1)
            statement.bind(localDate, at: 2)
            try statement.run()
        }
    }

    /// The stored daily summaries of `kind` for `device` (every date, or only `date`), ordered by
    /// date, with their stamps.
    ///
    /// - Throws: ``StoreError/corrupt(path:detail:)`` when a summary no longer matches its content
    ///   hash (it must not be served).
    public func stampedDailySummaries(device: String, kind: String, date: String? = nil) throws -> [StampedSummary] {
        try locked { db in
            let statement = try db.prepare("""
                SELECT s.local_date, s.json, s.content_hash, s.basis, s.computed_at FROM daily_summaries s
                JOIN devices d ON d.id = s.device_id
                WHERE d.serial = ?1 AND s.kind = ?2 AND (?3 IS NULL OR s.local_date = ?3) ORDER BY s.local_date
                """)
            statement.bind(device, at: 1)
            statement.bind(kind, at: 2)
            statement.bind(date, at: 3)
            var result: [StampedSummary] = []
            let arena = StoredJSONArena()
            while try statement.step() {
                let localDate = statement.text(at: 0) ?? ""
                let json = statement.withBytes(at: 1) { arena.copy($0) } ?? Data()
                try requireHash(json, statement.text(at: 2), what: "the \(kind) summary of \(device) on \(localDate)")
                var stamp: SummaryStamp?
                if let basis = statement.text(at: 3), let computedAt = statement.int64(at: 4) {
                    stamp = SummaryStamp(basis: basis, computedAt: computedAt)
                }
                result.append(StampedSummary(localDate: localDate, json: json, stamp: stamp))
            }
            return result
        }
    }

    /// The current sleep sessions of `device` computed with `basis` (every date, or only `date`),
    /// ordered by date and start.
    ///
    /// - Throws: ``StoreError/corrupt(path:detail:)`` when a session no longer matches its content hash.
    public func currentSleepSessions(device: String, basis: String, date: String? = nil) throws -> [StoredSleepSession] {
        try locked { db in
            let statement = try db.prepare("""
                SELECT s.start, s.stop, s.local_date, s.version, s.json, s.content_hash FROM sleep_sessions s
                JOIN devices d ON d.id = s.device_id
                WHERE d.serial = ?1 AND s.basis = ?2 AND (?3 IS NULL OR s.local_date = ?3) ORDER BY s.local_date, s.start
                """)
            statement.bind(device, at: 1)
            statement.bind(basis, at: 2)
            statement.bind(date, at: 3)
            var result: [StoredSleepSession] = []
            while try statement.step() {
                let start = statement.int64(at: 0) ?? 0
                let json = statement.data(at: 4) ?? Data()
                let hash = statement.text(at: 5) ?? ""
                try requireHash(json, hash, what: "the sleep session of \(device) starting \(start)")
                result.append(StoredSleepSession(start: start, stop: statement.int64(at: 1) ?? 0, localDate: statement.text(at: 2) ?? "",
                                                 version: statement.int(at: 3) ?? 0, json: json, contentHash: hash))
            }
            return result
        }
    }

    private func requireHash(_ json: Data, _ hash: String?, what: String) throws {
        guard SHA256.hex(json) == hash else {
            throw StoreError.corrupt(path: path, detail: "\(what) does not match its content hash; run `bracelet db check --db \(path)`")
        }
    }
}

/// Memory the stored JSON of one read is copied into: chunks of 8 MiB (or one row's size, if
/// larger), aligned to 2 MiB and advised as huge pages, each freed when the last `Data` in it goes.
/// The daily summaries of a month are about 20 MB; copied into their own allocations they cost a
/// page fault per 4 KiB (a tenth of `summarize --db`), into huge pages a few faults in all.
final class StoredJSONArena {
    private static let chunkSize = 8 << 20, alignment = 2 << 20
    private var chunk: Chunk?
    private var used = 0

    /// One aligned allocation, freed when its last `Data` is released.
    private final class Chunk {
        let base: UnsafeMutableRawPointer
        let size: Int

        init?(size: Int) {
            var pointer: UnsafeMutableRawPointer?
            guard posix_memalign(&pointer, StoredJSONArena.alignment, size) == 0, let pointer else { return nil }
            #if canImport(Glibc)
            // Only advice: without transparent huge pages the chunk is ordinary memory.
            _ = madvise(pointer, size, MADV_HUGEPAGE)
            #endif
            base = pointer
            self.size = size
        }

        deinit { free(base) }
    }

    /// A `Data` holding a copy of `bytes`, in the current chunk when it has room.
    func copy(_ bytes: UnsafeRawBufferPointer) -> Data {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return Data() }
        if chunk == nil || used + bytes.count > chunk!.size {
            guard let fresh = Chunk(size: max(Self.chunkSize, bytes.count)) else { return Data(bytes) }
            chunk = fresh
            used = 0
        }
        let chunk = chunk!
        let target = chunk.base + used
        target.copyMemory(from: source, byteCount: bytes.count)
        used += bytes.count
        return Data(bytesNoCopy: target, count: bytes.count, deallocator: .custom { _, _ in withExtendedLifetime(chunk) {} })
    }
}
