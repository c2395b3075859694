import BraceletProtocol
import BraceletSimulator
import BraceletTransport
import Testing

/// A long absence: several sealed files per kind (a lowered size cap makes two days of history
/// behave like a year), transferred in one session, oldest first, each committed before its erase.
extension LinkSessionTests {
    @Test(arguments: [DeviceModel.v1, .v2])
    func aBacklogOfManyFilesPerKindArrivesInOneSessionOldestFirst(model: DeviceModel) throws {
        let served = try ServedBracelet(model: model, days: 2, maximumFileSize: 20_000)
        let truth = served.groundTruth()
        #expect(truth.filter { $0.0 == .metrics }.count >= 4)
        #expect(truth.filter { $0.0 == .beats }.count >= 2)
        var events: [SessionEvent] = []
        let report = try syncAndCheck(served, truth: truth, onEvent: { events.append($0) })
        #expect(report.connections == 1)
        #expect(report.erasedFiles == truth.count)

        // The backlog was announced up front, per kind, and progress ends at exactly those totals.
        for kind in [FileKind.metrics, .beats] {
            let files = truth.filter { $0.0 == kind }
            let bytes = files.reduce(0) { $0 + $1.1.count }
            #expect(events.contains(.backlog(kind: kind, files: files.count, bytes: (bytes + 1023) / 1024 * 1024)))
        }
        var progress = BacklogProgress()
        for (i, event) in events.enumerated() { progress.apply(event, at: Double(i)) }
        #expect(progress.filesDone == truth.count)
        #expect(progress.filesTotal == truth.count)
        #expect(progress.bytesDone == truth.reduce(0) { $0 + $1.1.count })
        #expect(progress.bytesTotal == progress.bytesDone)
        #expect(progress.secondsLeft == 0)
        #expect(progress.current == nil)
    }

    @Test func aDropBeyondTheFirstFileResumesAtTheFileAndOffsetItReached() throws {
        // 19 972-byte V2 metrics files: 50 000 streamed bytes fall in the middle of the third file.
        let served = try ServedBracelet(model: .v2, days: 2, faults: ["drop-link-at:50000"], maximumFileSize: 20_000)
        var events: [SessionEvent] = []
        let report = try syncAndCheck(served, onEvent: { events.append($0) })
        #expect(report.connections == 2)
        let drop = try #require(events.firstIndex { if case .linkLost = $0 { true } else { false } })
        let committedBefore = events[..<drop].filter { if case .committed = $0 { true } else { false } }.count
        #expect(committedBefore == 2)
        // After reconnecting, the first transfer is the third file, resumed where the drop left it.
        let resumed = events[drop...].compactMap { event -> (Int, Int)? in
            if case let .transferStarted(.metrics, size, resumeAt) = event { (size, resumeAt) } else { nil }
        }.first
        let (size, resumeAt) = try #require(resumed)
        #expect(size == served.groundTruth()[2].1.count)
        #expect(resumeAt > 10_000 && resumeAt < size)
    }

    @Test func aRestartMidBacklogContinuesWithTheNextFileAndLosesNothing() throws {
        let served = try ServedBracelet(model: .v1, days: 2, maximumFileSize: 20_000)
        let truth = served.groundTruth()
        // The first run stops (Ctrl-C) after three files; a new session, as after a restart, finishes.
        var first = served.configuration()
        let log = served.log
        first.shouldStop = { log.commits.count >= 3 }
        let stopped = try BraceletSession(connector: UnixSocketConnector(path: served.path), sink: LoggingSink(log: served.log),
                                          configuration: first).run()
        #expect(stopped.committed.count == 3)
        #expect(served.server.snapshot.firmware.queues[.metrics, default: []].count == truth.filter { $0.0 == .metrics }.count - 3)
        try syncAndCheck(served, truth: truth)
    }
}

@Suite("Backlog progress: totals, rate and time left from session events")
struct BacklogProgressTests {
    @Test func totalsRateAndTimeLeftFollowTheEvents() {
        var p = BacklogProgress()
        #expect(p.filesTotal == nil && p.bytesTotal == nil && p.secondsLeft == nil)
        p.apply(.backlog(kind: .metrics, files: 2, bytes: 30 * 1024), at: 0)
        p.apply(.backlog(kind: .beats, files: 1, bytes: 10 * 1024), at: 0)
        #expect(p.filesTotal == 3)
        #expect(p.bytesTotal == 40 * 1024)
        p.apply(.transferStarted(kind: .metrics, size: 20_000, resumeAt: 0), at: 0)
        p.apply(.transferProgress(kind: .metrics, received: 10_000, size: 20_000), at: 2)
        #expect(p.bytesDone == 10_000)
        #expect(p.rate == 5_000)
        #expect(p.secondsLeft == Double(40 * 1024 - 10_000) / 5_000)
        p.apply(.transferProgress(kind: .metrics, received: 20_000, size: 20_000), at: 4)
        p.apply(.committed(kind: .metrics, size: 20_000), at: 4)
        #expect(p.filesDone == 1)
        #expect(p.bytesDone == 20_000)
        // A reconnection re-announces what waits: the total is what is done plus that.
        p.apply(.backlog(kind: .metrics, files: 1, bytes: 10 * 1024), at: 5)
        #expect(p.filesTotal == 3)
        #expect(p.bytesTotal == 20_000 + 20 * 1024)
        // A resumed file counts its held bytes as done but not as transferred in this session.
        p.apply(.transferStarted(kind: .metrics, size: 10_000, resumeAt: 4_000), at: 5)
        #expect(p.bytesDone == 24_000)
        #expect(p.bytesTransferred == 20_000)
    }

    @Test func withoutQueueStatusTotalsStayUnknownNotZero() {
        var p = BacklogProgress()
        p.apply(.transferStarted(kind: .beats, size: 8_000, resumeAt: 0), at: 0)
        p.apply(.transferProgress(kind: .beats, received: 8_000, size: 8_000), at: 2)
        #expect(p.filesTotal == nil)
        #expect(p.bytesTotal == nil)
        #expect(p.secondsLeft == nil)
        #expect(p.rate == 4_000)
    }
}
