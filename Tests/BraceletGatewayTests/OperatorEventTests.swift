import BraceletGateway
import BraceletProtocol
import BraceletSimulator
import BraceletStore
import BraceletTransport
import Foundation
import Synchronization
import Testing

/// The calendar clock a test's bracelets and gateway share; a test moves it on between gateway runs.
final class SharedClock: Sendable {
    private let clock: Mutex<ScaledClock>
    /// Real time from now on, reading `seconds` (Unix) now.
    init(reading seconds: Int64) { clock = Mutex(SharedClock.reading(seconds)) }
    var current: ScaledClock { clock.withLock { $0 } }
    func set(reading seconds: Int64) { clock.withLock { $0 = SharedClock.reading(seconds) } }
    static func reading(_ seconds: Int64) -> ScaledClock {
        ScaledClock(scale: 1, originMilliseconds: Int64(Date().timeIntervalSince1970 * 1_000), startMilliseconds: seconds * 1_000)
    }
}

/// A gateway running on its own thread over `store`, counting its completed syncs per endpoint.
final class RunningGateway: @unchecked Sendable {
    let gateway: Gateway
    private let syncs = SyncCounts()
    private let finished = DispatchSemaphore(value: 0)

    init(store: Store, clock: ScaledClock, intervalSeconds: Int64) {
        var settings = Gateway.Settings()
        settings.intervalSeconds = intervalSeconds
        settings.clock = clock
        settings.reloadSeconds = 0.2
        let syncs = self.syncs
        gateway = Gateway(store: store, settings: settings) { event in
            if case let .syncEnded(endpoint, _, _, _, true, _, _) = event { syncs.add(endpoint) }
        }
        let gateway = self.gateway, finished = self.finished
        Thread { gateway.run(); finished.signal() }.start()
    }

    func completedSyncs(_ endpoint: String) -> Int { syncs.count(endpoint) }

    /// Waits (up to a minute) until `condition` holds.
    func wait(until condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(60)
        while !condition() {
            if Date() > deadline { return false }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return true
    }

    func stop() {
        gateway.stop()
        finished.wait()
    }
}

/// Completed syncs per endpoint, counted from the gateway's threads.
final class SyncCounts: Sendable {
    private let counts = Mutex<[String: Int]>([:])
    func add(_ endpoint: String) { counts.withLock { $0[endpoint, default: 0] += 1 } }
    func count(_ endpoint: String) -> Int { counts.withLock { $0[endpoint] ?? 0 } }
}

/// An operator event as written to the outbox: its key, device, local date, and the payload's
/// `summary` (`event`, `at`, `detail`).
struct WrittenEvent: Equatable {
    var key: String
    var kind: String
    var device: String
    var localDate: String
    var event: String
    var detail: String
}

func writtenEvents(_ store: Store) throws -> [WrittenEvent] {
    try store.outboxEntries().filter { $0.kind.hasPrefix("event:") }.map { entry in
        let payload = try #require(try JSONSerialization.jsonObject(with: entry.payload) as? [String: Any])
        let summary = try #require(payload["summary"] as? [String: Any], "payload \(String(decoding: entry.payload, as: UTF8.self))")
        return WrittenEvent(key: entry.key, kind: entry.kind, device: entry.device, localDate: entry.localDate,
                            event: summary["event"] as? String ?? "", detail: summary["detail"] as? String ?? "")
    }
}

/// 2026-06-15 00:00 in Europe/Amsterdam (CEST, UTC+2), Unix seconds.
private let june15 = Int64(1_781_474_400)

@Suite(.serialized) struct OperatorEventTests {
    /// A bracelet at 12 % that is never charged raises `battery_low` once per local day: once before
    /// midnight however often it syncs, once more after; a bracelet on the typical battery raises nothing.
    @Test func batteryLowIsRaisedOncePerLocalDay() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // 23:50 local; later 00:10 the next day (a clock running fast through a night would make
        // the bracelet record beats faster than a sync drains them).
        let start = june15 + 86_400 - 600
        let clock = SharedClock(reading: start)
        let low = BatteryBehaviour(initialPercent: 12, drainPercentPerHour: 0, chargeBelowPercent: 0, chargePercentPerMinute: 1)
        let weak = try ServedBracelet(directory: folder, history: try PhysiologyModel.simulatedHistory(
            model: .v2, serial: "GWBAT001", days: 2, seed: 7, endingAt: start + 86_400, battery: low), clock: { clock.current.nowSeconds() })
        let fine = try ServedBracelet(directory: folder, history: try PhysiologyModel.simulatedHistory(
            model: .v1, serial: "GWBAT002", days: 2, seed: 7, endingAt: start + 86_400), clock: { clock.current.nowSeconds() })
        defer { weak.stop(); fine.stop() }
        let store = try Store(path: folder + "/g.db")
        for served in [weak, fine] { _ = try store.enrol(GatewayEnrolment(endpoint: "unix:" + served.path, timeZone: "Europe/Amsterdam")) }
        #expect(fine.history.batteryPercent(at: start) > 15, "the typical battery is not low")

        for phase in 0..<2 {
            if phase == 1 { clock.set(reading: june15 + 86_400 + 600) }
            let gateway = RunningGateway(store: store, clock: clock.current, intervalSeconds: 1)
            let synced = gateway.wait { gateway.completedSyncs("unix:" + weak.path) >= 3 && gateway.completedSyncs("unix:" + fine.path) >= 3 }
            gateway.stop()
            #expect(synced, "three syncs of each bracelet in phase \(phase)")
        }

        let events = try writtenEvents(store)
        #expect(events == [
            WrittenEvent(key: "event:GWBAT001:battery_low:2026-06-15", kind: "event:battery_low", device: "GWBAT001", localDate: "2026-06-15",
                         event: "battery_low", detail: "battery at 12 %: charge the bracelet"),
            WrittenEvent(key: "event:GWBAT001:battery_low:2026-06-16", kind: "event:battery_low", device: "GWBAT001", localDate: "2026-06-16",
                         event: "battery_low", detail: "battery at 12 %: charge the bracelet"),
        ])
        // What status shows for each: the battery as read.
        let status = try #require(try JSONSerialization.jsonObject(with: Data(GatewayStatus(store: store).json())) as? [String: Any])
        let batteries = (status["devices"] as? [[String: Any]] ?? []).reduce(into: [String: Int]()) { $0[$1["serial"] as? String ?? ""] = $1["battery"] as? Int }
        #expect(batteries["GWBAT001"] == 12)
        #expect(batteries["GWBAT002"] == fine.history.batteryPercent(at: clock.current.nowSeconds()))
    }

    /// A bracelet on its charger says so in its status: a low level then is no `battery_low`.
    @Test func aLowBatteryOnTheChargerRaisesNothing() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // At 10 %, charged at each morning's shower, slowly (0.1 %/min): 50 minutes below 15 %.
        let charging = BatteryBehaviour(initialPercent: 10, drainPercentPerHour: 0, chargeBelowPercent: 100, chargePercentPerMinute: 0.1)
        let history = try PhysiologyModel.simulatedHistory(model: .v2, serial: "GWCHG001", days: 2, seed: 7, endingAt: june15 + 2 * 86_400,
                                                           battery: charging)
        let charge = try #require(history.offWristPeriods.first { $0.isCharging && $0.start > history.start })
        let start = charge.start + 300
        #expect(history.isCharging(at: start))
        #expect(history.batteryPercent(at: start) <= 15)
        let clock = SharedClock(reading: start)
        let served = try ServedBracelet(directory: folder, history: history, clock: { clock.current.nowSeconds() })
        defer { served.stop() }
        let store = try Store(path: folder + "/g.db")
        _ = try store.enrol(GatewayEnrolment(endpoint: "unix:" + served.path, timeZone: "Europe/Amsterdam"))
        let gateway = RunningGateway(store: store, clock: clock.current, intervalSeconds: 1)
        let synced = gateway.wait { gateway.completedSyncs("unix:" + served.path) >= 2 }
        gateway.stop()
        #expect(synced)
        let row = try #require(try store.enrolments().first)
        #expect(row.battery == history.batteryPercent(at: start))
        #expect(try writtenEvents(store).isEmpty)
    }

    /// A bracelet left off the wrist for a whole local day raises `not_worn` for that day at the
    /// first sync of the next, once however often it syncs, whatever its slot length (here also
    /// 5 min); one worn every day raises nothing.
    @Test func notWornIsRaisedOnceForAWholeUnwornDay() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // 2026-06-17 10:00 local; 2026-06-16 lies on the table.
        let start = june15 + 2 * 86_400 + 10 * 3_600
        let clock = SharedClock(reading: start)
        let unworn = try PhysiologyModel.simulatedHistory(model: .v2, serial: "GWNW0001", days: 3, seed: 7, endingAt: start + 3_600,
                                                          unwornDays: [1])
        let worn = try PhysiologyModel.simulatedHistory(model: .v2, serial: "GWNW0002", days: 3, seed: 7, endingAt: start + 3_600)
        let coarse = try PhysiologyModel.simulatedHistory(model: .v1, serial: "GWNW0003", days: 3, seed: 9, endingAt: start + 3_600,
                                                          slotIntervalSeconds: 300, unwornDays: [1])
        #expect(!unworn.isWorn(at: june15 + 86_400 + 12 * 3_600) && !unworn.isWorn(at: june15 + 86_400 + 60) && !unworn.isWorn(at: june15 + 2 * 86_400 - 60))
        #expect(unworn.isWorn(at: june15 + 2 * 86_400 + 60) && worn.isWorn(at: june15 + 86_400 + 12 * 3_600))
        let a = try ServedBracelet(directory: folder, history: unworn, clock: { clock.current.nowSeconds() })
        let b = try ServedBracelet(directory: folder, history: worn, clock: { clock.current.nowSeconds() })
        let c = try ServedBracelet(directory: folder, history: coarse, clock: { clock.current.nowSeconds() })
        defer { a.stop(); b.stop(); c.stop() }
        let store = try Store(path: folder + "/g.db")
        for served in [a, b, c] { _ = try store.enrol(GatewayEnrolment(endpoint: "unix:" + served.path, timeZone: "Europe/Amsterdam")) }
        let gateway = RunningGateway(store: store, clock: clock.current, intervalSeconds: 1)
        let synced = gateway.wait { [a, b, c].allSatisfy { gateway.completedSyncs("unix:" + $0.path) >= 3 } }
        gateway.stop()
        #expect(synced)
        // The unworn day's slots are all stored, and none says worn; the day before was worn.
        let day = try store.wornSlotCount(device: "GWNW0001", from: june15 + 86_400, to: june15 + 2 * 86_400)
        #expect(day.slots == 1_440 && day.worn == 0 && day.seconds == 86_400)
        #expect(try store.wornSlotCount(device: "GWNW0002", from: june15 + 86_400, to: june15 + 2 * 86_400).worn > 1_300)
        #expect(try store.wornSlotCount(device: "GWNW0003", from: june15 + 86_400, to: june15 + 2 * 86_400) == (288, 0, 86_400))
        #expect(try writtenEvents(store).sorted { $0.key < $1.key } == ["GWNW0001", "GWNW0003"].map {
            WrittenEvent(key: "event:\($0):not_worn:2026-06-16", kind: "event:not_worn", device: $0, localDate: "2026-06-17",
                         event: "not_worn", detail: "not worn on 2026-06-16")
        })
    }

    /// Each event stays open by its own rule, judged from the occurrence its key names: not_sending
    /// until the sensor sends again, link_refused until a sync completes, battery_low by the
    /// gateway's own threshold, and clock_corrected never (it is done when written), whatever the
    /// battery says.
    @Test func eachOpenEventClosesByItsOwnRule() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try Store(path: folder + "/g.db")
        var e = GatewayEnrolment(endpoint: "unix:/tmp/none", user: "P-1", timeZone: "UTC", age: 40)
        (e.serial, e.enrolledAt, e.lastSyncAt, e.lastHeardAt, e.battery, e.lastSampleAt) = ("SN1", 1_000, 5_000, 5_000, 12, 7_000)
        let latest = [("clock_corrected", "4000"), ("not_sending", "7000"), ("link_refused", "5000"), ("battery_low", "2026-06-01")].map {
            (key: "event:SN1:\($0.0):\($0.1)", kind: "event:\($0.0)", device: "SN1", createdAt: Int64(9_000))
        }
        func open(batteryLow: Int = 15) throws -> [String] {
            var thresholds = OperatorEvents.Thresholds()
            thresholds.batteryLowPercent = batteryLow
            return try OperatorEvents.open(for: e, latest: latest, store: store, zone: TimeZone(identifier: "UTC")!, now: 10, thresholds: thresholds)
        }
        #expect(try open() == ["battery_low", "link_refused", "not_sending"])
        #expect(try open(batteryLow: 10) == ["link_refused", "not_sending"], "12 % is not low for a gateway run with --battery-low 10")
        e.lastSampleAt = 8_000
        #expect(try open() == ["battery_low", "link_refused"], "a value arrived since")
        e.lastSyncAt = 8_500
        #expect(try open() == ["battery_low"], "a sync completed since")
        e.battery = 80
        #expect(try open().isEmpty)
    }
}
