import BraceletProtocol
import BraceletTransport
import Foundation
import Synchronization
import Testing

/// The session reads the link while its sink commits: the sink's work runs on the session's writer,
/// so live Heart Rate notifications (the simulator sends one a second) keep arriving during a slow
/// commit, and the invariants of a sync (every file committed once, erased only after its commit)
/// still hold.
@Suite("Live link: the link is served while the sink commits")
struct LinkServedDuringCommitTests {
    /// What the session reported, seen from the sink's thread.
    final class Probe: Sendable {
        let heartRates = Atomic<Int>(0)
        let commits = Atomic<Int>(0)
        /// Heart Rate notifications the session reported while the first commit ran.
        let duringFirstCommit = Mutex<Int?>(nil)
    }

    /// A sink whose first commit lasts until the session reported two more Heart Rate notifications,
    /// or 6 s: a session that waited on the commit without reading the link reports none meanwhile.
    struct SlowSink: TransferSink {
        let log: LinkLog
        let probe: Probe

        func commit(_ file: TransferredFile) throws {
            if probe.commits.add(1, ordering: .relaxed).oldValue == 0 {
                let before = probe.heartRates.load(ordering: .relaxed)
                let deadline = ContinuousClock.now + .seconds(6)
                while probe.heartRates.load(ordering: .relaxed) < before + 2, ContinuousClock.now < deadline {
                    Thread.sleep(forTimeInterval: 0.01)
                }
                probe.duringFirstCommit.withLock { $0 = probe.heartRates.load(ordering: .relaxed) - before }
            }
            log.append(.commit(file.kind, file.bytes))
        }
    }

    @Test func heartRateNotificationsAreReadWhileAFileCommits() throws {
        let served = try ServedBracelet(model: .v2, days: 1)
        let truth = served.groundTruth()
        let probe = Probe()
        let session = BraceletSession(connector: UnixSocketConnector(path: served.path), sink: SlowSink(log: served.log, probe: probe),
                                      configuration: served.configuration()) { event in
            if case .heartRate = event { probe.heartRates.add(1, ordering: .relaxed) }
        }
        let report = try session.run()
        let during = try #require(probe.duringFirstCommit.withLock { $0 })
        #expect(during >= 2, "the session read no notification while the sink committed")
        #expect(report.syncCompleted)
        // The sync is still exact: each file committed once, in order, and erased only after its commit.
        #expect(served.log.commits.map(\.1) == truth.map(\.1))
        var committed: [[UInt8]] = []
        for entry in served.log.all {
            if case .commit(_, let bytes) = entry { committed.append(bytes) }
            if case .erase(_, let bytes) = entry { #expect(committed.contains(bytes), "erase before commit") }
        }
        #expect(served.log.erases.count == truth.count)
    }

    /// A sink that notes, at each end-of-sync call, how many files it had committed.
    final class EndNotingSink: TransferSink {
        let log: LinkLog
        init(log: LinkLog) { self.log = log }
        let commitsAtEnds = Mutex<[Int]>([])
        func commit(_ file: TransferredFile) throws { log.append(.commit(file.kind, file.bytes)) }
        func syncEnded() throws { commitsAtEnds.withLock { $0.append(log.commits.count) } }
    }

    @Test func theSinkHearsOnceThatTheSyncEndedAfterTheLastCommit() throws {
        let served = try ServedBracelet(model: .v2, days: 2, maximumFileSize: 30_000)
        let truth = served.groundTruth()
        #expect(truth.filter { $0.0 == .metrics }.count > 1)  // a backlog of several files per kind
        let sink = EndNotingSink(log: served.log)
        let report = try BraceletSession(connector: UnixSocketConnector(path: served.path), sink: sink,
                                         configuration: served.configuration()).run()
        #expect(report.syncCompleted)
        #expect(sink.commitsAtEnds.withLock { $0 } == [truth.count])
    }
}
