import Foundation
import Testing
import BraceletIngest
import BraceletProtocol
import BraceletStore
import BraceletSummaries
import BraceletTransport
import Synchronization

/// A live sync into the store through ``IngestPipeline``: each file is committed with its touched
/// days recorded as pending, and the days are recomputed once, when the sync ends, to exactly what
/// one ingest of the same files stores; a process that ends between a commit and the recompute
/// leaves the days for the next one.
@Suite("Live sync into the store: one recompute per sync")
struct LiveSyncRecomputeTests {
    /// The pipeline as the session's sink, keeping a copy of every file it was handed; with
    /// `endsSyncs` false it stands for a process that ends before the end of its sync.
    final class RecordingSink: TransferSink {
        let pipeline: IngestPipeline
        let endsSyncs: Bool
        let files = Mutex<[TransferredFile]>([])
        init(_ pipeline: IngestPipeline, endsSyncs: Bool = true) {
            self.pipeline = pipeline
            self.endsSyncs = endsSyncs
        }
        func commit(_ file: TransferredFile) throws {
            files.withLock { $0.append(file) }
            try pipeline.commit(file)
        }
        func syncEnded() throws { if endsSyncs { try pipeline.syncEnded() } }
    }

    static func withStores<T>(_ count: Int, _ body: ([String]) throws -> T) rethrows -> T {
        let paths = (0..<count).map { _ in NSTemporaryDirectory() + "bracelet-recompute-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).db" }
        defer {
            for path in paths { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        }
        return try body(paths)
    }

    static let configuration = Result { try SummaryConfiguration(age: 40, timeZone: .gmt) }

    /// Outbox entries by key with their content hashes: what a receiver is sent.
    static func queued(_ store: Store) throws -> [String: String] {
        Dictionary(uniqueKeysWithValues: try store.outboxEntries().map { ($0.key, $0.contentHash) })
    }

    @Test func aBacklogOfManyFilesIsSummarisedOnceToWhatOneIngestStores() throws {
        try Self.withStores(2) { paths in
            let served = try ServedBracelet(model: .v2, days: 3, maximumFileSize: 30_000)
            let store = try Store(path: paths[0])
            let reports = Mutex<[IngestReport]>([])
            let pipeline = IngestPipeline(store: store, configuration: try Self.configuration.get(), age: 40) { report in
                reports.withLock { $0.append(report) }
            }
            let sink = RecordingSink(pipeline)
            let session = BraceletSession(connector: UnixSocketConnector(path: served.path), sink: sink, configuration: served.configuration())
            let result = try session.run()
            #expect(result.syncCompleted)
            let files = sink.files.withLock { $0 }.filter { $0.kind == .metrics || $0.kind == .beats }
            #expect(files.filter { $0.kind == .metrics }.count > 2)  // 3 days of V2 in 30 000-byte files

            // One report per stored file, then one recompute, of every touched day once.
            let all = reports.withLock { $0 }
            let recomputes = all.filter { !$0.recomputed.isEmpty }
            #expect(all.count == files.count + 1)
            #expect(recomputes.count == 1)
            let dates = recomputes.flatMap { $0.recomputed.flatMap(\.report.dates) }
            #expect(dates.count == Set(dates).count)
            #expect(dates.count >= 3)
            #expect(try store.pendingRecompute().isEmpty)

            // The same files ingested at once: the same summaries and sleep sessions queued, each once.
            let reference = try Store(path: paths[1])
            let verified = try files.compactMap { try VerifiedFile(transferred: $0) }
            _ = try IngestPipeline(store: reference, configuration: try Self.configuration.get(), age: 40).ingest(verified)
            let expected = try Self.queued(reference)
            #expect(!expected.isEmpty)
            #expect(try Self.queued(store) == expected)
        }
    }

    @Test func daysCommittedByAProcessThatEndedBeforeRecomputingAreRecomputedByTheNext() throws {
        try Self.withStores(2) { paths in
            let served = try ServedBracelet(model: .v2, days: 2, maximumFileSize: 30_000)
            // The first process commits every file, then ends before the end of its sync: no recompute.
            let sink = RecordingSink(IngestPipeline(store: try Store(path: paths[0]), configuration: try Self.configuration.get(), age: 40),
                                     endsSyncs: false)
            _ = try BraceletSession(connector: UnixSocketConnector(path: served.path), sink: sink, configuration: served.configuration()).run()
            let files = sink.files.withLock { $0 }

            // The next process opens the file: the rows are there, no summary yet, every touched day pending.
            let store = try Store(path: paths[0])
            let serial = "V2LINK01"
            #expect(try store.outboxCounts().pending == 0)
            #expect(try store.summaryDates(device: serial).isEmpty)
            let pending = try store.pendingRecompute()
            #expect(pending.map(\.device) == [serial])
            let pendingDates = try #require(pending.first?.dates)
            #expect(pendingDates.count >= 2)

            let next = IngestPipeline(store: store, configuration: try Self.configuration.get(), age: 40)
            let report = try next.recomputePending()
            let recomputed = report.recomputed.flatMap(\.report.dates)
            #expect(Set(recomputed).isSubset(of: pendingDates))
            #expect(recomputed.sorted() == (try store.summaryDates(device: serial)))
            #expect(try store.pendingRecompute().isEmpty)
            #expect(try next.recomputePending().recomputed.isEmpty)

            let reference = try Store(path: paths[1])
            _ = try IngestPipeline(store: reference, configuration: try Self.configuration.get(), age: 40)
                .ingest(try files.compactMap { try VerifiedFile(transferred: $0) })
            #expect(try Self.queued(store) == (try Self.queued(reference)))
        }
    }
}
