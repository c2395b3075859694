import BraceletDecoder
import BraceletGateway
import BraceletProtocol
import BraceletSimulator
import BraceletStore
import BraceletTransport
import Foundation
import Glibc
import Synchronization
import Testing

/// A simulated standard sensor served on a Unix socket in this process, recording every value it
/// sent: the stream the gateway is judged against.
final class ServedSensor: @unchecked Sendable {
    let path: String
    let server: SimulatorServer
    /// The values sent, from the serving thread.
    final class Sent: Sendable {
        let values = Mutex<[[UInt8]]>([])
    }
    private let sent = Sent()
    private let done = DispatchSemaphore(value: 0)

    init(directory: String, profile: StandardHealthProfile, serial: String?) throws {
        let history = try PhysiologyModel.simulatedHistory(model: .v2, serial: serial.flatMap { $0.utf8.count <= 8 && $0.allSatisfy { $0.isASCII && !$0.isWhitespace } ? $0 : nil } ?? "NOSERIAL", days: 1, seed: 11,
                                                           endingAt: Int64(Date().timeIntervalSince1970) + 3_600)
        path = directory + "/\(profile).sock"
        let gatt = SimulatedGATTServer(sensor: profile, for: SimulatedFirmware(history: history, beatWindows: []), serial: serial)
        let sent = self.sent
        server = SimulatorServer(server: gatt, live: nil, feeds: SensorFeeds.feeds(for: profile, server: gatt, model: history)) { event in
            if case let .sensorValue(_, value) = event { sent.values.withLock { $0.append(value) } }
        }
        nonisolated(unsafe) let listener = try SeqPacketListener(unixPath: path)
        let server = self.server, done = self.done
        Thread {
            try? server.serve(listener: listener)
            listener.close()
            done.signal()
        }.start()
    }

    /// The heart-rate values sent so far, decoded.
    var heartRates: [HeartRateMeasurement] { sent.values.withLock { $0 }.compactMap { try? HeartRateMeasurement(value: $0) } }

    func stop() {
        server.stop()
        done.wait()
    }
}

@Suite(.serialized) struct GatewaySensorTests {
    /// A strap enrolled in a running `bracelet gateway run` (a real process, over unix:), watched
    /// until the far end shows it (at most 150 s; the issue's run is 70 s):
    /// at least 50 seconds with a value kept, `samples_kept`, `battery` and `serial` in `gateway
    /// status --json`, and today's daily entry in the JSON Lines sink with its averageBPM within 2
    /// of the mean of what the strap sent.
    @Test func aGatewayKeepsAnEnrolledStrap() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let strap = try ServedSensor(directory: folder, profile: .heartRate, serial: "HRSIM001")
        defer { strap.stop() }
        let db = folder + "/g.db", jsonl = folder + "/out.jsonl", log = folder + "/run.log"
        #expect(try bracelet(["gateway", "enroll", "--db", db, "--via", "unix:" + strap.path, "--user", "P-S", "--tz", "UTC", "--age", "40"]).status == 0)

        let process = Process()
        process.executableURL = try braceletBinary()
        process.arguments = ["gateway", "run", "--db", db, "--jsonl", jsonl, "--interval", "10"]
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: log)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        // What the far end holds: status (while it runs: the strap is being listened to) and the sink.
        func kept(_ status: (status: Int32, out: String, err: String)) -> Int? {
            let devices = (try? JSONSerialization.jsonObject(with: Data(status.out.utf8)) as? [String: Any])?["devices"] as? [[String: Any]]
            return devices?.first?["samples_kept"] as? Int
        }
        func dailyEntries() -> [[String: Any]] {
            let text = (try? String(contentsOfFile: jsonl, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
                .filter { $0["kind"] as? String == "daily:daily" && $0["device"] as? String == "HRSIM001" }
        }
        var status = try bracelet(["gateway", "status", "--db", db, "--json"])
        let deadline = Date().addingTimeInterval(150)
        while (kept(status) ?? 0) < 50 || dailyEntries().count < 3, process.isRunning, Date() < deadline {
            try await Task.sleep(nanoseconds: 1_000_000_000)
            status = try bracelet(["gateway", "status", "--db", db, "--json"])
        }
        kill(process.processIdentifier, SIGTERM)
        for _ in 0..<200 where process.isRunning { try await Task.sleep(nanoseconds: 100_000_000) }
        #expect(!process.isRunning && process.terminationStatus == 0)
        let logText = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""

        #expect(status.status == 0)
        let devices = try #require((try JSONSerialization.jsonObject(with: Data(status.out.utf8)) as? [String: Any])?["devices"] as? [[String: Any]])
        let device = try #require(devices.first)
        let kept = try #require(device["samples_kept"] as? Int, "no samples_kept in \(status.out); log: \(logText)")
        #expect(kept >= 50)
        #expect(device["serial"] as? String == "HRSIM001")
        #expect(device["battery"] as? Int != nil)
        #expect(device["sensor"] as? String == "heart-rate")
        #expect(device["state"] as? String == "streaming")
        #expect(device["last_sample"] as? String != nil)

        // The rows behind it, and the record of its wearer (the enrolled settings went into it).
        let store = try Store(path: db, readOnly: true)
        let slots = try store.slots(device: "HRSIM001", from: 0, to: Int64.max / 2)
        #expect(slots.count >= kept)
        #expect(try store.user(ofDevice: "HRSIM001") == "P-S")

        // The sink: today's daily entry, its latest version, against the mean of what was sent.
        let sent = strap.heartRates.filter { $0.contactDetected != false }.map { Double($0.bpm) }
        let streamMean = sent.reduce(0, +) / Double(max(1, sent.count))
        let today = String(ISO8601DateFormatter().string(from: Date()).prefix(10))
        let daily = dailyEntries()
        // Today's, unless the run crossed midnight (UTC): then the day that holds most of it.
        let latest = try #require(daily.filter { $0["local_date"] as? String == today }.max { ($0["version"] as? Int ?? 0) < ($1["version"] as? Int ?? 0) }
            ?? daily.last, "no daily entry; log: \(logText)")
        let average = try #require(((latest["summary"] as? [String: Any])?["bpm"] as? [String: Any])?["averageBPM"] as? Int)
        #expect(abs(Double(average) - streamMean) <= 2, "averageBPM \(average), stream mean \(streamMean)")
        #expect(daily.count >= 3)  // new versions delivered as the day went on
    }
}

extension GatewaySensorTests {
    /// A strap that goes away: its session ends, `not_sending` is written once the silence passes the
    /// threshold, and the strap is connected again as soon as it is back (not at the interval).
    @Test func aStrapThatStopsSendingRaisesAnEventAndIsKeptAgainWhenBack() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var strap = try ServedSensor(directory: folder, profile: .heartRate, serial: nil)
        let endpoint = "unix:" + strap.path
        let store = try Store(path: folder + "/g.db")
        _ = try store.enrol(GatewayEnrolment(endpoint: endpoint, timeZone: "UTC"))
        var settings = Gateway.Settings()
        settings.intervalSeconds = 3_600
        settings.reloadSeconds = 0.2
        settings.sensorRetrySeconds = 1
        settings.events.sensorSilentSeconds = 2
        let seen = Mutex<[GatewayEvent]>([])
        let gateway = Gateway(store: store, settings: settings) { event in seen.withLock { $0.append(event) } }
        let finished = DispatchSemaphore(value: 0)
        Thread { gateway.run(); finished.signal() }.start()
        defer { gateway.stop(); finished.wait() }
        func starts() -> Int { seen.withLock { $0.filter { if case .syncStarted = $0 { true } else { false } }.count } }
        // Without a Serial Number it is kept under its address (the endpoint here).
        try wait("values kept") { try store.enrolments().first.map { $0.samplesKept >= 5 } ?? false }
        #expect(try store.enrolments().first?.serial == endpoint)
        #expect(try store.devices().map(\.serial) == [endpoint])

        strap.stop()
        let startsBefore = starts()
        try wait("not_sending") { try store.operatorEvents(limit: 10).contains { $0.kind == "event:not_sending" } }
        // While it is away its connects fail before it says what it is: it stays a sensor, tried again
        // within seconds (1, 2, 4 s...), never backed off like a bracelet (a minute, doubling to an hour).
        try wait("tried again while away", seconds: 15) { starts() >= startsBefore + 3 }
        #expect(seen.withLock { $0.contains { if case .backingOff = $0 { true } else { false } } } == false)
        let ended = seen.withLock { $0.filter { if case .syncEnded = $0 { true } else { false } } }
        #expect(ended.isEmpty, "told as a bracelet's sync: \(ended)")
        let kept = try #require(try store.enrolments().first?.samplesKept)
        #expect(try store.operatorEvents(limit: 10).filter { $0.kind == "event:not_sending" }.count == 1)

        strap = try ServedSensor(directory: folder, profile: .heartRate, serial: nil)
        defer { strap.stop() }
        try wait("kept again after it came back", seconds: 40) { try store.enrolments().first.map { $0.samplesKept >= kept + 3 } ?? false }
        // The interval (an hour) did not hold it back, and one silence made one event.
        #expect(try store.operatorEvents(limit: 10).filter { $0.kind == "event:not_sending" }.count == 1)
    }
}

extension GatewaySensorTests {
    /// A strap whose Serial Number holds control characters (an escape sequence, a newline) is not
    /// named by it anywhere: its rows, its enrolment and its status are kept under its address, as a
    /// strap without a serial is.
    @Test func aStrapsSerialWithControlCharactersNamesNothing() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let strap = try ServedSensor(directory: folder, profile: .heartRate, serial: "HR\u{1B}[2J\nforged")
        defer { strap.stop() }
        let endpoint = "unix:" + strap.path
        let store = try Store(path: folder + "/g.db")
        _ = try store.enrol(GatewayEnrolment(endpoint: endpoint, timeZone: "UTC"))
        var settings = Gateway.Settings()
        settings.reloadSeconds = 0.2
        let seen = Mutex<[GatewayEvent]>([])
        let gateway = Gateway(store: store, settings: settings) { event in seen.withLock { $0.append(event) } }
        let finished = DispatchSemaphore(value: 0)
        Thread { gateway.run(); finished.signal() }.start()
        defer { gateway.stop(); finished.wait() }
        let deadline = Date().addingTimeInterval(30)
        while try store.enrolments().first.map({ $0.samplesKept < 3 }) ?? true {
            guard Date() < deadline else { Issue.record("no values kept within 30 s"); return }
            Thread.sleep(forTimeInterval: 0.1)
        }
        #expect(try store.devices().map(\.serial) == [endpoint])
        #expect(try store.enrolments().first?.serial == endpoint)
        let said = seen.withLock { $0.map { "\($0)" }.joined(separator: "\n") }
        #expect(!said.contains("\u{1B}") && !said.contains("\nforged"))
    }
}

extension GatewaySensorTests {
    /// A strap kept subscribed does not hold a bracelet's link: with `maxLinks` 1 and the strap
    /// streaming, a bracelet enrolled beside it is synced while the strap stays subscribed.
    @Test func aStreamingStrapDoesNotStarveABracelet() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let strap = try ServedSensor(directory: folder, profile: .heartRate, serial: "HRLINK01")
        let bracelet = try ServedBracelet(directory: folder, serial: "GWLINK01", model: .v2, slowMilliseconds: nil)
        defer { strap.stop(); bracelet.stop() }
        let store = try Store(path: folder + "/g.db")
        _ = try store.enrol(GatewayEnrolment(endpoint: "unix:" + strap.path, timeZone: "UTC"))
        var settings = Gateway.Settings()
        settings.maxLinks = 1
        settings.reloadSeconds = 0.2
        settings.intervalSeconds = 3_600
        let gateway = Gateway(store: store, settings: settings)
        let finished = DispatchSemaphore(value: 0)
        Thread { gateway.run(); finished.signal() }.start()
        defer { gateway.stop(); finished.wait() }
        func row(_ path: String) throws -> GatewayEnrolment? { try store.enrolments().first { $0.endpoint == "unix:" + path } }
        try wait("the strap streams", seconds: 30) { try row(strap.path).map { $0.samplesKept >= 2 } ?? false }

        _ = try store.enrol(GatewayEnrolment(endpoint: "unix:" + bracelet.path, timeZone: "UTC"))
        try wait("the bracelet synced beside the strap", seconds: 90) { try row(bracelet.path)?.lastSyncAt != nil }
        #expect(try row(bracelet.path)?.serial == "GWLINK01")
        #expect(gateway.activeEndpoints.contains("unix:" + strap.path), "the strap stayed subscribed")
        let before = try #require(try row(strap.path)?.samplesKept)
        try wait("the strap keeps streaming", seconds: 30) { (try row(strap.path)?.samplesKept ?? 0) > before }
    }
}

extension GatewaySensorTests {
    /// Midnight while a strap streams: the day that ended is recomputed once (by its stream, at its
    /// first value of the new day), not a second time by the gateway's day-end turn. The wearer's
    /// zone is a fixed offset whose midnight comes 40 to 100 s from now (real time: a summary is
    /// never computed from values later than now).
    @Test func aStreamingStrapsDayIsRecomputedOnceAtItsEnd() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let strap = try ServedSensor(directory: folder, profile: .heartRate, serial: "HRMIDN01")
        defer { strap.stop() }
        let endpoint = "unix:" + strap.path
        let now = Int64(Date().timeIntervalSince1970)
        var minutes = (86_400 - 40 - now % 86_400) / 60  // local midnight at now + 40 ..< 100 s
        if minutes > 14 * 60 { minutes -= 1_440 }
        let midnight = now + (86_400 - (now + minutes * 60) % 86_400)
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let zone = (minutes < 0 ? "-" : "+") + two(abs(minutes) / 60) + ":" + two(abs(minutes) % 60)
        let store = try Store(path: folder + "/g.db")
        _ = try store.enrol(GatewayEnrolment(endpoint: endpoint, timeZone: zone))
        var settings = Gateway.Settings()
        settings.reloadSeconds = 0.2
        let runs = Mutex<[Int64]>([])  // when (Unix ms) each recompute with pending days began
        let gateway = Gateway(store: store, settings: settings) { event in
            if case .progress(_, .recomputing(done: 0, total: let total)) = event, total > 0 {
                runs.withLock { $0.append(Int64(Date().timeIntervalSince1970 * 1_000)) }
            }
        }
        let finished = DispatchSemaphore(value: 0)
        Thread { gateway.run(); finished.signal() }.start()
        defer { gateway.stop(); finished.wait() }
        let deadline = Date().addingTimeInterval(150)
        while Date().timeIntervalSince1970 < Double(midnight + 15) {
            guard Date() < deadline else { Issue.record("midnight did not come"); return }
            Thread.sleep(forTimeInterval: 0.2)
        }
        #expect(try store.enrolments().first.map { $0.samplesKept >= 30 } == true)
        let afterMidnight = runs.withLock { $0 }.filter { $0 >= midnight * 1_000 }
        #expect(afterMidnight.count == 1, "recomputes after midnight at \(afterMidnight.map { $0 - midnight * 1_000 }) ms")
        let local = try #require(TimeZone(secondsFromGMT: Int(minutes) * 60))
        let yesterday = ZonedTime.date(ofUnix: midnight - 1, in: local).description
        let dates = try store.summaryDates(device: "HRMIDN01")
        #expect(dates.contains(yesterday), "stored days: \(dates), zone \(zone)")
    }
}

extension GatewaySensorTests {
    /// `gateway run` killed with SIGKILL while a strap streams: every second with a value the status
    /// said was kept is in the database, and the enrolment's count is exactly the rows stored (the
    /// count is written in the transaction that stores them: one fsync per write, never apart).
    @Test func aKilledGatewayKeepsWhatItSaidItKept() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let strap = try ServedSensor(directory: folder, profile: .heartRate, serial: "HRKILL01")
        defer { strap.stop() }
        let db = folder + "/g.db"
        #expect(try bracelet(["gateway", "enroll", "--db", db, "--via", "unix:" + strap.path, "--tz", "UTC", "--age", "40"]).status == 0)
        let process = Process()
        process.executableURL = try braceletBinary()
        process.arguments = ["gateway", "run", "--db", db, "--jsonl", folder + "/out.jsonl", "--interval", "10"]
        process.standardError = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        func kept() throws -> Int {
            let out = try bracelet(["gateway", "status", "--db", db, "--json"]).out
            let devices = (try? JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any])?["devices"] as? [[String: Any]]
            return devices?.first?["samples_kept"] as? Int ?? 0
        }
        var said = 0
        let deadline = Date().addingTimeInterval(60)
        while said < 12, Date() < deadline {
            try await Task.sleep(nanoseconds: 500_000_000)
            said = try kept()
        }
        #expect(said >= 12, "the strap's values were not kept within 60 s")
        // Mid-stream, a write or two after the one the status saw.
        try await Task.sleep(nanoseconds: 2_700_000_000)
        kill(process.processIdentifier, SIGKILL)
        for _ in 0..<100 where process.isRunning { try await Task.sleep(nanoseconds: 50_000_000) }
        #expect(!process.isRunning)

        let store = try Store(path: db)
        let rows = try store.slots(device: "HRKILL01", from: 0, to: .max / 2).count
        let counted = try #require(try store.enrolments().first?.samplesKept)
        #expect(counted >= said)
        #expect(rows == counted, "\(rows) seconds stored, \(counted) counted by the enrolment")
    }
}

/// Waits (polling every 0.1 s) until `condition` holds; records an issue and throws after `seconds`.
func wait(_ what: String, seconds: Double = 30, until condition: () throws -> Bool) throws {
    let deadline = Date().addingTimeInterval(seconds)
    while try !condition() {
        guard Date() < deadline else { Issue.record("\(what) did not happen within \(seconds) s"); throw CancellationError() }
        Thread.sleep(forTimeInterval: 0.1)
    }
}
