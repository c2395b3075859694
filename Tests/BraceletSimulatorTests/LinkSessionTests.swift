import BraceletProtocol
import BraceletSimulator
import BraceletTransport
import Testing

@Suite("Live link: bracelet session against the served simulator")
struct LinkSessionTests {
    /// Runs a session and checks the invariants every run must keep: the sink got exactly the
    /// ground truth (one commit per file), every erase was preceded by the commit of the same bytes,
    /// and the bracelet is empty afterwards.
    @discardableResult
    func syncAndCheck(_ served: ServedBracelet, truth: [(FileKind, [UInt8])]? = nil,
                      tweak: (inout SessionConfiguration) -> Void = { _ in },
                      onEvent: @escaping (SessionEvent) -> Void = { _ in }) throws -> BraceletSession.Report {
        var configuration = served.configuration()
        tweak(&configuration)
        let session = BraceletSession(connector: UnixSocketConnector(path: served.path), sink: LoggingSink(log: served.log),
                                      configuration: configuration, onEvent: onEvent)
        let report = try session.run()
        let expected = truth ?? served.groundTruth()
        let commits = served.log.commits
        #expect(commits.count == expected.count)
        for (got, want) in zip(commits, expected) {
            #expect(got.0 == want.0)
            #expect(got.1 == want.1)
        }
        var committedSoFar: [[UInt8]] = []
        for entry in served.log.all {
            switch entry {
            case .commit(_, let bytes): committedSoFar.append(bytes)
            case .erase(_, let bytes): #expect(committedSoFar.contains(bytes), "erase before commit")
            case .dropped: break
            }
        }
        #expect(served.log.erases.count == expected.count)
        let firmware = served.server.snapshot.firmware
        #expect(firmware.queues[.metrics, default: []].isEmpty)
        #expect(firmware.queues[.beats, default: []].isEmpty)
        return report
    }

    @Test func cleanSyncStoresExactlyTheGroundTruth() throws {
        let served = try ServedBracelet(model: .v1, days: 1)
        let truth = served.groundTruth()
        // One day of V1 at 60 s slots: 32-byte header + 1440 × 24 + 4 bytes of CRC.
        #expect(truth.first?.0 == .metrics)
        #expect(truth.first?.1.count == 32 + 1_440 * 24 + 4)
        #expect(truth.contains { $0.0 == .beats })
        let report = try syncAndCheck(served, truth: truth)
        #expect(report.connections == 1)
        #expect(report.packetsLost == 0)
        #expect(report.model == .v1)
        #expect(report.serial == "V1LINK01")
        #expect(report.erasedFiles == truth.count)
    }

    @Test func v2SyncReadsDeviceInformationAsV2() throws {
        let served = try ServedBracelet(model: .v2, days: 1)
        let report = try syncAndCheck(served)
        #expect(report.model == .v2)
        #expect(served.log.commits.first?.1.count == 32 + 1_440 * 32 + 4)
    }

    @Test(arguments: ["lose-packet:0", "lose-packet:7", "lose-packet:63", "lose-packet:219", "lose-packet:400"])
    func lostPacketIsReRequested(fault: String) throws {
        let served = try ServedBracelet(faults: [fault])
        let report = try syncAndCheck(served)
        #expect(report.packetsLost >= 1)
        #expect(report.connections == 1)
    }

    @Test(arguments: ["repeat-packet:0", "repeat-packet:63", "repeat-packet:300"])
    func repeatedPacketIsIgnored(fault: String) throws {
        let served = try ServedBracelet(faults: [fault])
        let report = try syncAndCheck(served)
        #expect(report.packetsRepeated == 1)
        #expect(report.packetsLost == 0)
    }

    @Test(arguments: ["corrupt-crc:1", "corrupt-crc:64", "corrupt-crc:250"])
    func corruptPacketIsTreatedAsLost(fault: String) throws {
        let served = try ServedBracelet(faults: [fault])
        let report = try syncAndCheck(served)
        #expect(report.packetsLost >= 1)
    }

    @Test(arguments: ["drop-link-at:1", "drop-link-at:9999", "drop-link-at:10000", "drop-link-at:34000", "drop-link-at:34632", "drop-link-at:90000"])
    func linkDropResumesAfterReconnect(fault: String) throws {
        let served = try ServedBracelet(faults: [fault])
        let report = try syncAndCheck(served)
        #expect(report.connections == 2)
        #expect(served.log.all.contains(.dropped))
    }

    @Test(arguments: ["reboot-at:500", "reboot-at:20000", "reboot-at:60000"])
    func rebootResetsTheClockAndTheSessionRecovers(fault: String) throws {
        let served = try ServedBracelet(faults: [fault])
        let report = try syncAndCheck(served)
        #expect(report.connections == 2)
    }

    @Test func clockResetIsHandledBySetTimeFirst() throws {
        let served = try ServedBracelet(faults: ["clock-reset"])
        try syncAndCheck(served)
    }

    @Test func everyFaultAtOnce() throws {
        let served = try ServedBracelet(model: .v2, faults: ["lose-packet:3", "lose-packet:90", "repeat-packet:5", "corrupt-crc:120",
                                                             "drop-link-at:25000", "reboot-at:70000", "clock-reset"])
        let report = try syncAndCheck(served)
        #expect(report.connections == 3)
    }

    @Test func randomFaultPointsNeverLoseOrEraseEarly() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<4 {
            let faults = ["lose-packet:\(Int.random(in: 0..<1_500, using: &generator))",
                          "repeat-packet:\(Int.random(in: 0..<1_500, using: &generator))",
                          "corrupt-crc:\(Int.random(in: 0..<1_500, using: &generator))",
                          "drop-link-at:\(Int.random(in: 1..<200_000, using: &generator))"]
            let served = try ServedBracelet(faults: faults)
            try syncAndCheck(served)
        }
    }

    @Test func slowBraceletStillCompletes() throws {
        // 1 ms before every notification: 1 day of V1 is ~230 notifications of metrics alone.
        let served = try ServedBracelet(faults: ["slow:1"])
        let metricsOnly = served.groundTruth().filter { $0.0 == .metrics }
        let started = ContinuousClock.now
        try syncAndCheck(served, truth: metricsOnly) { $0.kinds = [.metrics] }
        // 34 596 bytes in 158-byte payloads: 219 data packets, each delayed 1 ms.
        #expect(started.duration(to: .now) >= .milliseconds(219))
    }

    @Test func failingSinkStopsWithoutErasing() throws {
        let served = try ServedBracelet()
        var sink = LoggingSink(log: served.log)
        sink.failing = true
        let session = BraceletSession(connector: UnixSocketConnector(path: served.path), sink: sink, configuration: served.configuration())
        #expect(throws: SessionError.self) { try session.run() }
        #expect(served.log.erases.isEmpty)
        #expect(served.server.snapshot.firmware.erasedBytes.isEmpty)
    }

    @Test func noSimulatorGivesUpWithBackoff() throws {
        var c = SessionConfiguration()
        c.initialBackoff = .milliseconds(5)
        c.maximumReconnects = 3
        let session = BraceletSession(connector: UnixSocketConnector(path: "/tmp/bracelet-no-such-socket.sock"), sink: LoggingSink(log: LinkLog()),
                                      configuration: c)
        let error = #expect(throws: SessionError.self) { try session.run() }
        if case .gaveUp(let attempts, _)? = error { #expect(attempts == 3, "three tries, none of which connected") } else { Issue.record("expected gaveUp, got \(String(describing: error))") }
    }

    @Test func liveHeartRateNotificationsAreDecoded() throws {
        let served = try ServedBracelet()
        var events: [SessionEvent] = []
        var c = served.configuration()
        c.kinds = []
        c.liveDuration = .milliseconds(2_300)
        let session = BraceletSession(connector: UnixSocketConnector(path: served.path), sink: LoggingSink(log: served.log),
                                      configuration: c) { events.append($0) }
        let report = try session.run()
        let rates = events.compactMap { if case .heartRate(let m) = $0 { m } else { nil } }
        #expect(report.heartRateNotifications == rates.count)
        // The fixed clock sits 5 minutes after the end of the history: the source replays the same
        // second of the previous day; the bracelet notifies once per second.
        #expect(rates.count >= 1 && rates.count <= 3)
        if let expected = LiveHeartRateSource(model: served.history).measurementCopy(endingAt: served.now) {
            #expect(rates.first == expected)
        }
    }
}

extension LiveHeartRateSource {
    func measurementCopy(endingAt t: Int64) -> HeartRateMeasurement? {
        var copy = self
        return copy.measurement(endingAt: t)
    }
}

@Suite("Live link: junk from the peer is reported, the sync still completes")
struct LinkJunkTests {
    @Test(arguments: [40, 200])
    func unknownHandlesMalformedAndOversizedFramesAreSurvived(after: Int) throws {
        let served = try ServedBracelet()
        var events: [SessionEvent] = []
        let session = BraceletSession(connector: JunkInjectingConnector(path: served.path, after: after), sink: LoggingSink(log: served.log),
                                      configuration: served.configuration()) { events.append($0) }
        _ = try session.run()
        let truth = served.groundTruth()
        #expect(served.log.commits.map(\.1) == truth.map(\.1))
        #expect(events.contains(.unknownHandle(0x0777)))
        #expect(events.contains { if case .diagnostic(let d) = $0 { d.contains("malformed") } else { false } })
        #expect(events.contains(.diagnostic(ATTBearerDiagnostic.oversizedFrame(length: 603, mtu: 247).description)))
    }
}

@Suite("Live link: refused erase and a file that never verifies")
struct LinkRefusalTests {
    @Test func refusedEraseKeepsTheDataAndTheFileComesAgain() throws {
        let served = try ServedBracelet()
        var events: [SessionEvent] = []
        let connector = JunkInjectingConnector(path: served.path, spoilFirstErase: true)
        _ = try BraceletSession(connector: connector, sink: LoggingSink(log: served.log), configuration: served.configuration()) {
            events.append($0)
        }.run()
        let truth = served.groundTruth()
        #expect(events.contains { if case .eraseRefused(.metrics, let why) = $0 { why.contains("erase size") } else { false } })
        // The metrics file was committed, refused erase, sent again, committed again (the store is
        // idempotent), then erased; beats as usual.
        #expect(served.log.commits.map(\.1) == [truth[0].1] + truth.map(\.1))
        #expect(served.log.erases.map(\.1) == truth.map(\.1))
        #expect(served.log.all.first == .commit(.metrics, truth[0].1))
    }

    @Test func anAnnouncedSizeThatDisagreesWithTheHeaderIsNamedAndNothingOfItErased() throws {
        let served = try ServedBracelet()
        var events: [SessionEvent] = []
        // The relay announces metrics files 10 bytes shorter than their headers say.
        let connector = JunkInjectingConnector(path: served.path, shrinkMetricsSize: true)
        let session = BraceletSession(connector: connector, sink: LoggingSink(log: served.log), configuration: served.configuration()) {
            events.append($0)
        }
        let error = #expect(throws: SessionError.self) { try session.run() }
        let truth = served.groundTruth()
        let metrics = try #require(truth.first { $0.0 == .metrics }?.1)
        guard case let .sizeMismatch(mismatch)? = error else {
            Issue.record("expected sizeMismatch, got \(String(describing: error))")
            return
        }
        #expect(mismatch == AnnouncedSizeMismatch(kind: .metrics, announced: metrics.count - 10, recordCount: 1_440, recordSize: 24))
        #expect(!mismatch.isWrapped)
        #expect(mismatch.description.contains("corrupted"))
        #expect(!mismatch.description.contains("truncated"))
        // Stopped at the header: never read to the end, never verified, committed or erased.
        #expect(!events.contains { if case .verificationFailed = $0 { true } else { false } })
        #expect(served.server.snapshot.firmware.queues[.metrics]?.first == metrics)
        #expect(!served.log.commits.contains { $0.0 == .metrics })
        // The other kind still arrived.
        #expect(served.log.commits.map(\.1) == truth.filter { $0.0 == .beats }.map(\.1))
        #expect(served.log.erases.map(\.1) == truth.filter { $0.0 == .beats }.map(\.1))
    }
}

@Suite("Live link: a response with a bad CRC-8 counts as no response")
struct LinkResponseCRCTests {
    @Test(arguments: [1, 3, 5])
    func damagedResponseIsDiscardedAndTheCommandResent(number: Int) throws {
        let served = try ServedBracelet()
        var events: [SessionEvent] = []
        var configuration = served.configuration()
        configuration.commandTimeout = .milliseconds(300)
        let connector = JunkInjectingConnector(path: served.path, corruptResponseNumber: number)
        let report = try BraceletSession(connector: connector, sink: LoggingSink(log: served.log), configuration: configuration) {
            events.append($0)
        }.run()
        #expect(report.connections == 1)
        #expect(events.contains { if case .diagnostic(let d) = $0 { d.contains("discarded a response frame") } else { false } })
        #expect(served.log.commits.map(\.1) == served.groundTruth().map(\.1))
        #expect(served.log.erases.count == served.groundTruth().count)
    }
}
