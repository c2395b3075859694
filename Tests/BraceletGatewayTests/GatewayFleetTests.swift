import BraceletDecoder
import BraceletExport
import BraceletGateway
import BraceletSimulator
import BraceletStore
import BraceletSync
import BraceletTransport
import BraceletVitality
import Foundation
import Testing
@testable import BraceletFleet

/// A gateway's fleet: the throwaway cluster, its owner, one gateway role with the given devices
/// assigned and a reader role.
final class GatewayFleet {
    let cluster: TestCluster
    let owner: FleetServer
    let gateway: FleetServer
    let reader: FleetServer

    init(gateway name: String, devices: [String]) throws {
        cluster = try TestCluster()
        owner = try FleetServer(uri: cluster.url)
        let admin = try FleetAdmin(server: owner)
        _ = try admin.migrate()
        gateway = try cluster.server(as: try admin.addGateway(name))
        reader = try cluster.server(as: try admin.addReader(name + "_reader"))
        for device in devices { #expect(try admin.assign(device: device, gateway: name) == nil) }
    }

    /// `sql`'s rows as `role` reads them.
    func rows(_ sql: String, as role: FleetServer) throws -> [[String?]] {
        try PGConnection(server: role).execute(sql).values
    }
}

/// The gateway's own delivery loop (`gateway run --postgres`) on a task, until stopped. The task
/// runs on a thread of its own, as in the gateway's process: in the whole suite the cooperative
/// pool's two threads are often held by tests that block, and a delivery queued behind them did
/// nothing for a minute.
final class RunningDelivery: @unchecked Sendable {
    private let executor = ThreadExecutor()
    private let task: Task<Void, any Error>

    /// Delivers `store` to `target`, reporting the gateway's status read at `clock` every 0.2 s.
    init(store: Store, to target: GatewayDelivery, clock: @escaping @Sendable () -> ScaledClock = { .wall }) throws {
        let policy = try RetryPolicy(baseDelayMilliseconds: 50, maxDelayMilliseconds: 500)
        task = Task(executorPreference: executor) {
            try await target.follow(store: store, policy: policy, pollMilliseconds: 100, thresholds: OperatorEvents.Thresholds(),
                                    now: { clock().nowMilliseconds() }, statusSeconds: 0.2, onEvent: { _ in })
        }
    }

    func stop() async {
        task.cancel()
        _ = await task.result
        executor.stop()
    }
}

/// Runs the jobs of the tasks that prefer it on one thread of its own, in order, until stopped.
final class ThreadExecutor: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var stopped = false

    init() {
        Thread { [self] in run() }.start()
    }

    func enqueue(_ job: UnownedJob) {
        condition.withLock {
            jobs.append(job)
            condition.signal()
        }
    }

    /// Ends the thread once the jobs queued are run.
    func stop() {
        condition.withLock {
            stopped = true
            condition.signal()
        }
    }

    private func run() {
        while true {
            condition.lock()
            while jobs.isEmpty, !stopped { condition.wait() }
            if jobs.isEmpty { condition.unlock(); return }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}

/// Waits (up to a minute) until `condition` holds, suspended between looks: a thread of the
/// cooperative pool (two on two cores) held asleep here is one the delivery task cannot run on.
func eventually(_ condition: () throws -> Bool) async rethrows -> Bool {
    let deadline = Date().addingTimeInterval(60)
    while try !condition() {
        if Date() > deadline { return false }
        try? await Task.sleep(for: .milliseconds(100))
    }
    return true
}

/// Runs `body`, which blocks (a gateway run and its waits), on a thread of its own, off the
/// cooperative pool the delivery task runs on.
func onOwnThread(_ body: @escaping @Sendable () -> Void) async {
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        Thread { body(); done.resume() }.start()
    }
}

@Suite(.serialized, .enabled(if: TestCluster.available, TestCluster.skipReason))
struct GatewayFleetTests {
    /// A gateway delivering to the fleet with its own role: the operator events it raises (a
    /// bracelet at 12 %) are stored in the fleet like its summaries, not refused as dead letters:
    /// no dead entry, the sink is `ok`, and a reader finds the event with its detail.
    @Test func operatorEventsReachTheFleetInsteadOfBecomingDeadLetters() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let fleet = try GatewayFleet(gateway: "gw_events", devices: ["GWFE0001"])
        let now = Int64(Date().timeIntervalSince1970)
        let low = BatteryBehaviour(initialPercent: 12, drainPercentPerHour: 0, chargeBelowPercent: 0, chargePercentPerMinute: 1)
        let weak = try ServedBracelet(directory: folder, history: try PhysiologyModel.simulatedHistory(
            model: .v2, serial: "GWFE0001", days: 1, seed: 3, endingAt: now + 3_600, battery: low))
        defer { weak.stop() }
        let store = try Store(path: folder + "/g.db")
        _ = try store.enrol(GatewayEnrolment(endpoint: "unix:" + weak.path, user: "P-EV1", timeZone: "UTC", age: 40))
        let delivery = try RunningDelivery(store: store, to: .postgres(uri: fleet.gateway.uri))
        let gateway = RunningGateway(store: store, clock: SharedClock.reading(now), intervalSeconds: 60)
        let delivered = await eventually {
            gateway.completedSyncs("unix:" + weak.path) >= 1 && ((try? writtenEvents(store))?.contains { $0.event == "battery_low" } ?? false)
                && (try? store.outboxCounts().pending) == 0
        }
        gateway.stop()
        await delivery.stop()
        let (counts, health) = (try? store.outboxCounts(), try? store.sinkHealth())
        #expect(delivered, "synced, battery_low raised, outbox drained: \(String(describing: counts)) \(String(describing: health))")

        #expect(try store.outboxCounts().dead == 0, "no operator event became a dead letter")
        #expect(try store.sinkHealth().map(\.state) == [.ok])
        let event = try #require(try writtenEvents(store).first { $0.event == "battery_low" })
        let rows = try fleet.rows("SELECT device, event, outbox_key, local_date::text, detail, user_id FROM fleet_operator_events", as: fleet.reader)
        #expect(rows == [["GWFE0001", "battery_low", event.key, event.localDate, event.detail, "P-EV1"]])
    }

    /// The study page from the fleet with a reader role is the gateway's own page: the three
    /// bracelets of ``StudyScenario`` synced by a gateway that delivers to the fleet with its own
    /// role (its operator events, and its status at its bounded rate), then the page of each,
    /// made at the same time, has the same rows (days, model, last heard, last sync, battery and its
    /// change, open events, backlog, scorable, who needs attention) and the same sink with its state;
    /// and the built binary's CSV from the fleet (`--postgres-file`, a reader's URL) is the one from
    /// the gateway's database but for the fleet's own column, the last delivery.
    @Test func theFleetsStudyPageIsTheGatewaysPage() async throws {
        let scenario = try StudyScenario()
        defer { scenario.end() }
        let fleet = try GatewayFleet(gateway: "gw_study", devices: ["GWSR0001", "GWSR0002", "GWSR0003"])
        let clock = scenario.clock
        let delivery = try RunningDelivery(store: scenario.store, to: .postgres(uri: fleet.gateway.uri), clock: { clock.current })
        await onOwnThread { scenario.run() }
        let from = try #require(LocalDate(iso: "2026-06-12")), to = try #require(LocalDate(iso: "2026-06-18"))
        func pages() throws -> (gateway: StudyOverview, fleet: StudyOverview) {
            let now = clock.current.nowSeconds()
            return (try StudyOverview.gateway(store: scenario.store, from: from, to: to, now: now, source: "gateway", thresholds: OperatorEvents.Thresholds()),
                    try FleetReader(server: fleet.reader).studyOverview(from: from, to: to, now: now, source: "fleet"))
        }
        /// A page without what only the fleet says: when it was delivered, which gateway reported when.
        func shared(_ overview: StudyOverview) -> StudyOverview {
            var page = overview
            page.source = ""
            page.origin = .gateway
            page.participants = page.participants.map { var row = $0; row.lastDeliveryAt = nil; return row }
            page.sinks = page.sinks.map { var sink = $0; (sink.gateway, sink.reportedAt) = (nil, nil); return sink }
            return page
        }
        let caughtUp = try await eventually {
            let (gateway, fleet) = try pages()
            return try scenario.store.outboxCounts().pending == 0 && shared(fleet) == shared(gateway)
        }
        await delivery.stop()
        let (gateway, fleetPage) = try pages()
        #expect(caughtUp, "the fleet's page caught up with the gateway's:\n\(shared(gateway))\n\(shared(fleetPage))")

        // Not an empty agreement: the rows carry what the gateway knows.
        let rows = Dictionary(uniqueKeysWithValues: fleetPage.participants.map { ($0.device, $0) })
        #expect(fleetPage.participants.map(\.device) == ["GWSR0001", "GWSR0002", "GWSR0003"])
        #expect(fleetPage.participants.map(\.model) == ["V2", "V1", "V2"])
        // The silent one may also be failing its syncs by now (a loaded machine takes longer to get here).
        #expect(rows["GWSR0002"]?.health?.openEvents.contains("not_heard") == true && rows["GWSR0003"]?.health?.openEvents == ["battery_low"],
                "\(String(describing: rows["GWSR0002"]?.health)) \(String(describing: rows["GWSR0003"]?.health))")
        #expect(rows["GWSR0003"]?.health?.battery == 12 && rows["GWSR0003"]?.health?.batteryChange == 0)
        #expect(fleetPage.participants.allSatisfy { $0.health?.lastSyncAt != nil && $0.lastDeliveryAt != nil })
        #expect(fleetPage.participants.map(\.attention) == gateway.participants.map(\.attention))
        let sink = try #require(fleetPage.sinks.first)
        #expect(fleetPage.sinks.count == 1 && sink.gateway == "gw_study" && sink.health?.state == .ok && sink.dead == 0 && sink.pending == 0)
        #expect(sink.name == "postgres \(fleet.gateway)" && !sink.name.contains(fleet.cluster.password))
        #expect(sink.delivered == (try scenario.store.outboxCounts().delivered))
        // The page's participant rows are the gateway's, byte for byte.
        func participantRows(_ overview: StudyOverview) -> [String] {
            StudyPage(overview: overview).html().components(separatedBy: "<tr class=\"participant").dropFirst().map { String($0.prefix { $0 != "\n" }) }
        }
        #expect(participantRows(fleetPage) == participantRows(gateway))

        // The built binary, as a reader with its URL in a private file: the fleet's CSV is the gateway's.
        let urlFile = scenario.folder + "/reader.url"
        #expect(FileManager.default.createFile(atPath: urlFile, contents: Data(fleet.reader.uri.utf8), attributes: [.posixPermissions: 0o600]))
        let range = ["--from", "2026-06-12", "--to", "2026-06-18", "--format", "csv"]
        let fromFleet = try bracelet(["report", "--study", "--postgres-file", urlFile] + range)
        let fromGateway = try bracelet(["report", "--study", "--db", scenario.db] + range)
        #expect(fromFleet.status == 0 && fromGateway.status == 0, "\(fromFleet.err) \(fromGateway.err)")
        func withoutLastDelivery(_ csv: String) -> [String] {
            let lines = csv.components(separatedBy: "\r\n").filter { !$0.isEmpty }
            guard let column = lines.first?.components(separatedBy: ",").firstIndex(of: "last_delivery") else { return [] }
            // The study CSV quotes only free text, which comes after this column.
            return lines.map { line in
                var fields = line.components(separatedBy: ",")
                fields.remove(at: column)
                return fields.joined(separator: ",")
            }
        }
        #expect(withoutLastDelivery(fromFleet.out).count == 1 + 3 * 7)
        #expect(withoutLastDelivery(fromFleet.out) == withoutLastDelivery(fromGateway.out))
    }
}
