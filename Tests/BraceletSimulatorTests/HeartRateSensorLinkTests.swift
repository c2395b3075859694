import BraceletProtocol
import BraceletSimulator
import BraceletTransport
import Synchronization
import Testing

@Suite("Live link: a standard heart-rate sensor (simulate --profile heart-rate) and the session")
struct HeartRateSensorLinkTests {
    /// Events of a session, collected from the session's thread.
    final class Events: Sendable {
        private let all = Mutex<[SessionEvent]>([])
        func append(_ e: SessionEvent) { all.withLock { $0.append(e) } }
        var list: [SessionEvent] { all.withLock { $0 } }
    }

    @Test func theSessionListensToASensorAndTransfersNothing() throws {
        let served = try ServedBracelet(days: 2, profile: .heartRate)
        var expectedSource = LiveHeartRateSource(model: served.history)
        let measured = expectedSource.measurement(endingAt: served.now)
        let expected = try #require(measured, "the model must be worn at the test's moment")
        var configuration = served.configuration()
        configuration.liveDuration = .milliseconds(2_600)
        let events = Events()
        let session = BraceletSession(connector: UnixSocketConnector(path: served.path), sink: LoggingSink(log: served.log),
                                      configuration: configuration, onEvent: { events.append($0) })
        let report = try session.run()

        let sensor = try #require(report.sensor)
        #expect(sensor == StandardSensorInfo(manufacturer: "Bracelet Labs", model: "HRS-SIM", serial: "HRSIM001", firmwareRevision: "1.0",
                                             bodySensorLocation: 1, batteryPercent: served.history.batteryPercent(at: served.now),
                                             profiles: [.heartRate]))
        #expect(sensor.locationName == "chest")
        #expect(report.serial == "HRSIM001")
        #expect(events.list.contains(.standardSensor(sensor)))
        // One notification a second, each the model's beats of the second before the (fixed) clock.
        let rates = events.list.compactMap { if case .sensorSample(let s) = $0, case .heartRate(let m) = s.measurement { m } else { nil } }
        #expect(rates.count >= 2)
        #expect(rates.allSatisfy { $0 == expected })
        #expect(!expected.rrIntervals1024.isEmpty)
        #expect(report.sensorSamples == rates.count)
        // A sensor holds no files: nothing committed, nothing erased, and that is a completed run.
        #expect(served.log.all.isEmpty)
        #expect(report.committed.isEmpty && report.erasedFiles == 0)
        #expect(report.syncCompleted)
    }

    @Test func theSensorServesOnlyStandardServices() throws {
        let history = try PhysiologyModel.simulatedHistory(model: .v2, serial: "V2SIM001", days: 1, seed: 7, endingAt: 1_780_000_000)
        let server = SimulatedGATTServer(sensor: .heartRate, for: SimulatedFirmware(history: history, beatWindows: []), serial: "HRSIM001")
        let services = Set(server.attributes.filter { $0.type == GATTNumbers.primaryService }.map { $0.value })
        #expect(services == Set([0x1800, 0x1801, 0x180A, 0x180D, 0x180F].map { BluetoothUUID(UInt16($0)).wireBytes }))
        #expect(server.handles.command == 0 && server.handles.heartRate != 0 && server.handles.cccd[server.handles.heartRate] != nil)
        // The advertisement lists the Heart Rate service UUID (0x180D, little-endian) after the flags.
        #expect(Array(HeartRateSensorAdvertisement.advertisingData.prefix(7)) == [0x02, 0x01, 0x06, 0x05, 0x03, 0x0D, 0x18])
    }

    @Test func aStopRequestMidTransferLeavesTheSyncIncomplete() throws {
        let served = try ServedBracelet(days: 1)
        var configuration = served.configuration()
        let stop = Atomic<Bool>(false)
        configuration.shouldStop = { stop.load(ordering: .relaxed) }
        let session = BraceletSession(connector: UnixSocketConnector(path: served.path), sink: LoggingSink(log: served.log),
                                      configuration: configuration, onEvent: { event in
                                          if case .committed = event { stop.store(true, ordering: .relaxed) }
                                      })
        let report = try session.run()
        #expect(report.committed.count == 1)
        #expect(!report.syncCompleted)
        let finished = try BraceletSession(connector: UnixSocketConnector(path: served.path), sink: LoggingSink(log: served.log),
                                           configuration: served.configuration()).run()
        #expect(finished.syncCompleted)
        #expect(finished.sensor == nil)
    }
}
