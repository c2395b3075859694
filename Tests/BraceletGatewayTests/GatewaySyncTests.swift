import BraceletGateway
import BraceletProtocol
import BraceletSimulator
import BraceletStore
import BraceletTransport
import BraceletVitality
import Foundation
import Synchronization
import Testing

/// A simulated bracelet serving on a real Unix socket in this process, until stopped.
final class ServedBracelet: @unchecked Sendable {
    let path: String
    let server: SimulatorServer
    let history: PhysiologyModel
    private let done = DispatchSemaphore(value: 0)

    /// Two days of the typical wearer up to now.
    convenience init(directory: String, serial: String, model: DeviceModel, slowMilliseconds: Int?) throws {
        let history = try PhysiologyModel.simulatedHistory(model: model, serial: serial, days: 2, seed: 7,
                                                           endingAt: Int64(Date().timeIntervalSince1970))
        var faults = FirmwareFaults()
        faults.slowMilliseconds = slowMilliseconds
        try self.init(directory: directory, history: history, faults: faults)
    }

    /// `history`'s bracelet, living on `clock` (Unix seconds; default the wall clock).
    init(directory: String, history: PhysiologyModel, faults: FirmwareFaults = FirmwareFaults(),
         clock: @escaping @Sendable () -> Int64 = { Int64(time(nil)) }) throws {
        self.history = history
        path = directory + "/\(history.serial).sock"
        let firmware = SimulatedFirmware(history: history, beatWindows: history.sleepPeriods.map { TimeSpan(start: $0.start, end: $0.end) },
                                         faults: faults)
        server = SimulatorServer(server: SimulatedGATTServer(firmware: firmware), live: nil, clock: clock)
        nonisolated(unsafe) let listener = try SeqPacketListener(unixPath: path)
        let server = self.server, done = self.done
        Thread {
            try? server.serve(listener: listener)
            listener.close()
            done.signal()
        }.start()
    }

    func stop() {
        server.stop()
        done.wait()
    }
}

/// A fresh folder under the system's temporary directory, removed by `clean()`.
func temporaryFolder() throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("gateway-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

@Suite(.serialized) struct GatewaySyncTests {
    /// Two bracelets synced by one gateway with their links open at the same time, while a third
    /// endpoint that never answers fails, backs off, and holds up neither.
    @Test func syncsTwoBraceletsAtOnceWhileAFailingOneBacksOff() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Slow notifications make each transfer take seconds, so the two links overlap.
        let a = try ServedBracelet(directory: folder, serial: "GWTA0001", model: .v2, slowMilliseconds: 2)
        let b = try ServedBracelet(directory: folder, serial: "GWTB0001", model: .v1, slowMilliseconds: 2)
        defer { a.stop(); b.stop() }
        let store = try Store(path: folder + "/g.db")
        _ = try store.enrol(GatewayEnrolment(endpoint: "unix:" + a.path, user: "P-A", timeZone: "Europe/Amsterdam", age: 40))
        _ = try store.enrol(GatewayEnrolment(endpoint: "unix:" + b.path, user: "P-B", timeZone: "UTC", hrMax: 180))
        _ = try store.enrol(GatewayEnrolment(endpoint: "unix:" + folder + "/absent.sock"))

        let links = Mutex((now: 0, most: 0, ended: [String: Bool](), seconds: [String: Double]()))
        var settings = Gateway.Settings()
        settings.maxLinks = 3
        settings.intervalSeconds = 3_600
        settings.retryBaseSeconds = 1
        settings.retryCapSeconds = 2
        let gateway = Gateway(store: store, settings: settings) { event in
            links.withLock { l in
                switch event {
                case .syncStarted: l.now += 1; l.most = max(l.most, l.now)
                case let .syncEnded(endpoint, _, _, _, completed, _, seconds):
                    l.now -= 1
                    l.ended[endpoint] = completed
                    l.seconds[endpoint] = seconds
                default: break
                }
            }
        }
        let finished = DispatchSemaphore(value: 0)
        Thread { gateway.run(); finished.signal() }.start()
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline {
            let rows = try store.enrolments()
            let synced = rows.filter { $0.lastSyncAt != nil }.count
            let failed = rows.first { $0.endpoint.hasSuffix("absent.sock") }?.failures ?? 0
            if synced == 2 && failed >= 2 { break }
            Thread.sleep(forTimeInterval: 0.2)
        }
        gateway.stop()
        finished.wait()

        let rows = try store.enrolments()
        let byEndpoint = Dictionary(uniqueKeysWithValues: rows.map { ($0.endpoint, $0) })
        #expect(byEndpoint["unix:" + a.path]?.serial == "GWTA0001")
        #expect(byEndpoint["unix:" + b.path]?.serial == "GWTB0001")
        #expect(byEndpoint["unix:" + a.path]?.state == "synced")
        #expect(byEndpoint["unix:" + a.path]?.battery != nil)
        let absent = byEndpoint["unix:" + folder + "/absent.sock"]
        #expect(absent?.state == "out_of_range")
        #expect((absent?.failures ?? 0) >= 2, "the unreachable endpoint was retried after its backoff")
        #expect(links.withLock { $0.most } >= 2, "two links were open at the same time")
        // A sync's duration is the time it held its link: seconds of slowed notifications here.
        for served in [a, b] {
            let seconds = links.withLock { $0.seconds["unix:" + served.path] } ?? 0
            #expect(seconds > 1 && seconds < 120, "the sync of \(served.path) took \(seconds) s")
        }
        // Everything each bracelet recorded is in the store and erased on the bracelet.
        for (served, serial) in [(a, "GWTA0001"), (b, "GWTB0001")] {
            #expect(try store.wornSlotCount(device: serial, from: 0, to: Int64.max / 2).slots >= 2 * 1_440 - 60)
            let emptied = served.server.snapshot.firmware.queues.values.allSatisfy(\.isEmpty)
            #expect(emptied, "every sealed file was erased after its commit")
        }
        #expect(try store.outboxCounts().pending > 0, "the synced days were summarised into the outbox")
    }

    /// A bracelet whose clock went 10 minutes wrong between two syncs raises one clock_corrected
    /// event (an outbox entry of kind event:clock_corrected), and the next sync, with the clock set
    /// right again, raises none.
    @Test func aClockOffByMoreThanAMinuteRaisesOneEvent() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let a = try ServedBracelet(directory: folder, serial: "GWTC0001", model: .v2, slowMilliseconds: nil)
        defer { a.stop() }
        let store = try Store(path: folder + "/g.db")
        _ = try store.enrol(GatewayEnrolment(endpoint: "unix:" + a.path, timeZone: "Europe/Amsterdam"))
        var settings = Gateway.Settings()
        settings.intervalSeconds = 1
        let syncs = Mutex(0)
        let gateway = Gateway(store: store, settings: settings) { event in
            if case .syncEnded(_, _, _, _, true, _, _) = event { syncs.withLock { $0 += 1 } }
        }
        let finished = DispatchSemaphore(value: 0)
        Thread { gateway.run(); finished.signal() }.start()
        defer { gateway.stop(); finished.wait() }
        func waitFor(_ count: Int) throws {
            let deadline = Date().addingTimeInterval(60)
            while syncs.withLock({ $0 }) < count, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
            #expect(syncs.withLock { $0 } >= count)
        }
        try waitFor(1)
        #expect(try store.operatorEvents(limit: 10).isEmpty, "the first sync knows no offset to read the clock in")
        a.server.stepClock(seconds: -600)
        let before = syncs.withLock { $0 }
        try waitFor(before + 2)
        let events = try store.operatorEvents(limit: 10)
        #expect(events.map(\.kind) == ["event:clock_corrected"])
        #expect(events.first?.device == "GWTC0001")
    }

    /// `gateway status --json`'s document: every enrolled bracelet with the agreed keys, and the sinks.
    @Test func statusDocumentHasTheAgreedKeys() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try Store(path: folder + "/g.db")
        _ = try store.enrol(GatewayEnrolment(endpoint: "unix:/nowhere.sock", user: "P-9"))
        var attempt = GatewayAttempt(at: 1_700_000_000_000, completed: true, heard: true)
        attempt.serial = "SN000009"
        attempt.battery = 12
        try store.recordAttempt(endpoint: "unix:/nowhere.sock", attempt)
        let json = try JSONSerialization.jsonObject(with: Data(GatewayStatus(store: store).json())) as? [String: Any]
        let devices = json?["devices"] as? [[String: Any]]
        let sinks = json?["sinks"] as? [[String: Any]]
        #expect(devices?.count == 1)
        let device = try #require(devices?.first)
        for key in ["serial", "user", "last_heard", "last_sync", "state", "battery", "failures"] { #expect(device[key] != nil, "key \(key)") }
        #expect(device["serial"] as? String == "SN000009")
        #expect(device["user"] as? String == "P-9")
        #expect(device["battery"] as? Int == 12)
        #expect(device["last_sync"] as? String == "2023-11-14T22:13:20.000Z")
        #expect(device["state"] as? String == "synced")
        let sink = try #require(sinks?.first)
        for key in ["pending", "delivered", "dead"] { #expect(sink[key] as? Int == 0, "key \(key)") }
    }

    /// Enrolling again with only some settings keeps the others; a maximum heart rate keeps the
    /// age (which the vitality metrics still use), as `person set` does.
    @Test func reEnrolmentKeepsSettingsNotGivenAgain() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try Store(path: folder + "/g.db")
        #expect(try store.enrol(GatewayEnrolment(endpoint: "unix:/x", user: "P-1", timeZone: "Europe/Amsterdam", age: 50)))
        #expect(try !store.enrol(GatewayEnrolment(endpoint: "unix:/x", hrMax: 175)))
        let row = try #require(try store.enrolments().first)
        #expect(row.user == "P-1")
        #expect(row.timeZone == "Europe/Amsterdam")
        #expect(row.age == 50)
        #expect(row.hrMax == 175)
        #expect(try store.removeEnrolment(endpoint: "unix:/x"))
        #expect(try store.enrolments().isEmpty)
    }

    /// The person's settings given at enrolment go into the participant record once the serial is
    /// known, and leave the enrolment: a later change of the record (`person set`) is never undone
    /// by the next sync, and the bracelet's clock follows the record's zone.
    @Test func enrolledSettingsGoIntoTheParticipantRecordOnceAndALaterChangeStays() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try Store(path: folder + "/g.db")
        _ = try store.enrol(GatewayEnrolment(endpoint: "unix:/x", user: "P-1", timeZone: "Europe/Amsterdam", age: 50))
        let enrolled = try DeviceSettings(enrolment: try #require(try store.enrolments().first))
        #expect(!enrolled.isEmpty)
        try enrolled.apply(serial: "SN1", endpoint: "unix:/x", store: store)

        let record = try ParticipantRecord.load(device: "SN1", from: store).current()
        #expect(record.timeZone?.identifier == "Europe/Amsterdam")
        #expect(record.age == 50)
        #expect(try store.user(ofDevice: "SN1") == "P-1")
        let row = try #require(try store.enrolments().first)
        #expect(row.user == nil && row.timeZone == nil && row.age == nil && row.hrMax == nil)

        _ = try Participants.set(ParticipantChange(settings: ParticipantProfile(timeZone: TimeZone(identifier: "America/New_York"), age: 51)),
                                 device: "SN1", store: store)
        let next = try DeviceSettings(enrolment: try #require(try store.enrolments().first))
        #expect(next.isEmpty)
        try next.apply(serial: "SN1", endpoint: "unix:/x", store: store)
        let after = try ParticipantRecord.load(device: "SN1", from: store).current()
        #expect(after.age == 51)
        #expect(next.timeZone(serial: "SN1", store: store).identifier == "America/New_York")
    }

    /// A running gateway moves the enrolled settings into the record once: a `person set` made
    /// after the first sync stays through the next syncs, whose enrolment copy (enrolments are
    /// not read again here) no longer holds the settings it moved.
    @Test func aRunningGatewayDoesNotWriteMovedSettingsAgain() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let a = try ServedBracelet(directory: folder, serial: "GWPS0001", model: .v2, slowMilliseconds: nil)
        defer { a.stop() }
        let store = try Store(path: folder + "/g.db")
        _ = try store.enrol(GatewayEnrolment(endpoint: "unix:" + a.path, user: "P-1", timeZone: "UTC", age: 50))
        var settings = Gateway.Settings()
        settings.intervalSeconds = 1
        settings.reloadSeconds = 3_600
        let syncs = Mutex(0)
        let gateway = Gateway(store: store, settings: settings) { event in
            if case .syncEnded(_, _, _, _, true, _, _) = event { syncs.withLock { $0 += 1 } }
        }
        let finished = DispatchSemaphore(value: 0)
        Thread { gateway.run(); finished.signal() }.start()
        defer { gateway.stop(); finished.wait() }
        func waitFor(_ count: Int) {
            let deadline = Date().addingTimeInterval(60)
            while syncs.withLock({ $0 }) < count, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
            #expect(syncs.withLock { $0 } >= count)
        }
        waitFor(1)
        #expect(try ParticipantRecord.load(device: "GWPS0001", from: store).current().age == 50)
        _ = try Participants.set(ParticipantChange(settings: ParticipantProfile(age: 51)), device: "GWPS0001", store: store)
        waitFor(syncs.withLock { $0 } + 2)
        #expect(try ParticipantRecord.load(device: "GWPS0001", from: store).current().age == 51)
        #expect(gateway.enrolled.first?.settings.isEmpty == true)
        #expect(try store.user(ofDevice: "GWPS0001") == "P-1")
    }
}
