import BraceletStore
import BraceletSync
import Foundation
import Testing
@testable import BraceletFleet

/// A gateway database in a temporary folder, removed when released.
final class GatewayDatabase {
    let folder: URL
    let store: Store

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("bracelet-fleet-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        store = try Store(path: folder.appendingPathComponent("gateway.db").path)
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    /// Stores a day summary whose content is `steps` (a new value makes a new version).
    func day(_ device: String, _ date: String, steps: Int) throws {
        _ = try store.upsertDailySummary(device: device, localDate: date, kind: "daily", json: Data(#"{"date":"\#(date)","steps":\#(steps)}"#.utf8))
    }

    /// Stores a sleep session.
    func session(_ device: String, start: Int64, date: String, minutes: Int) throws {
        _ = try store.upsertSleepSession(device: device, start: start, stop: start + Int64(minutes * 60), localDate: date,
                                         json: Data(#"{"minutes":\#(minutes)}"#.utf8))
    }
}

/// `(key, version, content_hash)` of every row of both fleet tables, sorted.
func fleetRows(_ server: FleetServer) throws -> [[String?]] {
    let connection = try PGConnection(server: server)
    return try connection.execute("""
        SELECT device || '/' || kind || '/' || local_date, version::text, content_hash FROM fleet_daily_summaries
        UNION ALL SELECT device || '/sleep/' || session_start, version::text, content_hash FROM fleet_sleep_sessions
        ORDER BY 1
        """).values
}

@Suite(.serialized, .enabled(if: TestCluster.available, TestCluster.skipReason))
struct PostgresSinkTests {
    @Test func sendingAgainChangesNothingAndSaysAlreadyHad() async throws {
        let cluster = try TestCluster()
        let server = try FleetServer(uri: cluster.url)
        let gateway = try GatewayDatabase()
        try gateway.day("SN1", "2026-03-01", steps: 100)
        try gateway.day("SN1", "2026-03-02", steps: 200)
        try gateway.session("SN1", start: 1_772_400_000, date: "2026-03-02", minutes: 420)
        let entries = try gateway.store.outboxEntries()
        let sink = PostgresSink(server: server)

        #expect(sink.deliver(batch: entries) == Array(repeating: .delivered(httpStatus: nil), count: 3))
        let first = try fleetRows(server)
        #expect(first.count == 3)
        #expect(first.map { $0[1] } == ["1", "1", "1"])
        #expect(Set(first.map { $0[2] }) == Set(entries.map(\.contentHash)))

        // The same entries again (a gateway killed before it recorded the delivery).
        #expect(sink.deliver(batch: entries) == Array(repeating: .alreadyHad(httpStatus: nil), count: 3))
        #expect(try fleetRows(server) == first)
    }

    @Test func anOlderVersionNeverOverwritesANewerOne() async throws {
        let cluster = try TestCluster()
        let server = try FleetServer(uri: cluster.url)
        let gateway = try GatewayDatabase()
        try gateway.day("SN2", "2026-03-01", steps: 100)
        try gateway.day("SN2", "2026-03-01", steps: 150)
        try gateway.day("SN2", "2026-03-02", steps: 10)
        try gateway.day("SN2", "2026-03-02", steps: 20)
        let entries = try gateway.store.outboxEntries()
        #expect(entries.map(\.version) == [1, 2, 1, 2])
        let sink = PostgresSink(server: server)

        // Newest first, then the old one late: the newer stays.
        #expect(sink.deliver(batch: [entries[1]]) == [.delivered(httpStatus: nil)])
        #expect(sink.deliver(batch: [entries[0]]) == [.alreadyHad(httpStatus: nil)])
        // Both versions in one batch, old after new: the newest is stored once.
        #expect(sink.deliver(batch: [entries[3], entries[2]]) == [.delivered(httpStatus: nil), .delivered(httpStatus: nil)])
        let rows = try fleetRows(server)
        #expect(rows == [["SN2/daily:daily/2026-03-01", "2", entries[1].contentHash], ["SN2/daily:daily/2026-03-02", "2", entries[3].contentHash]])
    }

    @Test func aStoppedServerIsATransientFailureAndNothingIsDeadLettered() async throws {
        let cluster = try TestCluster()
        let server = try FleetServer(uri: cluster.url)
        let gateway = try GatewayDatabase()
        for day in 1...5 { try gateway.day("SN3", "2026-03-0\(day)", steps: day) }
        let sink = PostgresSink(server: server)
        let forwarder = FleetForwarder(store: gateway.store, sink: sink, policy: try RetryPolicy(baseDelayMilliseconds: 1, maxDelayMilliseconds: 2),
                                       batchSize: 2)
        // The first batch connects and lands; then the server dies under the open connection.
        #expect(sink.deliver(batch: [try gateway.store.outboxEntries()[0]]) == [.delivered(httpStatus: nil)])
        try cluster.kill()
        let down = try await forwarder.deliverDue()
        // The first batch failed without an answer, which ends the pass: the server is down for
        // every batch, so the other entries wait for the next pass untried.
        #expect(down.retried == 2)
        #expect(down.dead == 0 && down.delivered == 0 && down.pausedReason == nil)
        #expect(try gateway.store.outboxCounts() == OutboxCounts(pending: 5, delivered: 0, dead: 0))
        let reasons = try gateway.store.outboxEntries().compactMap(\.lastError)
        #expect(reasons.count == 2 && reasons.allSatisfy { $0.contains("cannot reach the fleet database") })

        try cluster.up()
        let report = try await forwarder.drain()
        #expect(report.delivered == 5 && report.dead == 0)
        #expect(try gateway.store.outboxCounts() == OutboxCounts(pending: 0, delivered: 5, dead: 0))
        #expect(try fleetRows(server).count == 5)
    }

    /// A statement cancelled by the server's statement_timeout (SQLSTATE 57014; here a lock another
    /// session holds on the fleet table) is a moment, not a bad entry: the entries stay pending with
    /// the reason, none is dead-lettered, and once the lock goes they are delivered.
    @Test func aStatementTimeoutIsRetriedNotDeadLettered() async throws {
        let cluster = try TestCluster()
        let server = try FleetServer(uri: cluster.url)
        let gateway = try GatewayDatabase()
        let sink = PostgresSink(server: server, timeouts: FleetTimeouts(statementSeconds: 1))
        let forwarder = FleetForwarder(store: gateway.store, sink: sink, policy: try RetryPolicy(baseDelayMilliseconds: 1, maxDelayMilliseconds: 2))
        try gateway.day("SN4", "2026-03-01", steps: 1)
        #expect(try await forwarder.drain().delivered == 1)
        for day in 2...3 { try gateway.day("SN4", "2026-03-0\(day)", steps: day) }
        let holder = try PGConnection(server: server)
        try holder.execute("BEGIN")
        try holder.execute("LOCK TABLE fleet_daily_summaries IN ACCESS EXCLUSIVE MODE")
        let locked = try await forwarder.deliverDue()
        #expect(locked.dead == 0 && locked.delivered == 0 && locked.pausedReason == nil && locked.retried == 2)
        #expect(try gateway.store.outboxCounts() == OutboxCounts(pending: 2, delivered: 1, dead: 0))
        let reasons = try gateway.store.outboxEntries().compactMap(\.lastError)
        #expect(reasons.count == 2 && reasons.allSatisfy { $0.contains("SQLSTATE 57014") && $0.contains("sync retries it") }, "\(reasons)")
        try holder.execute("ROLLBACK")
        let report = try await forwarder.drain()
        #expect(report.delivered == 2 && report.dead == 0)
        #expect(try fleetRows(server).count == 3)
    }

    @Test func thePasswordIsNeverPrinted() async throws {
        let cluster = try TestCluster()
        let password = cluster.password
        let wrong = try FleetServer(uri: cluster.url.replacingOccurrences(of: password, with: "not-\(password)"))
        let gateway = try GatewayDatabase()
        try gateway.day("SN4", "2026-03-01", steps: 1)
        let entry = try #require(try gateway.store.outboxEntries().first)

        // A refused login pauses the sink (a configuration failure) and names the fix, not the password.
        let refused = PostgresSink(server: wrong).deliver(batch: [entry])
        guard case let .configurationFailure(reason, _) = refused[0] else {
            Issue.record("a wrong password gave \(refused[0]), not a configuration failure")
            return
        }
        #expect(reason.contains("password"))
        #expect(!reason.contains(password))

        let server = try FleetServer(uri: cluster.url)
        let sink = PostgresSink(server: server)
        #expect(!sink.name.contains(password) && sink.name.contains("bracelet:***@127.0.0.1"))
        try cluster.kill()
        let outcome = sink.deliver(batch: [entry])[0]
        #expect(outcome.label == "transient_failure")
        #expect(!(outcome.reason ?? "").contains(password))
        #expect(!String(describing: try? FleetReader(server: server)).contains(password))
    }
}

@Suite struct FleetServerTests {
    @Test func descriptionsHideEveryPassword() throws {
        let server = try FleetServer(uri: "postgresql://gw:s3cr%40t@db.example.org:5432/fleet?sslmode=verify-full&password=other")
        #expect(server.description == "postgresql://gw:***@db.example.org:5432/fleet?sslmode=verify-full&password=***")
        #expect(try FleetServer(uri: "postgres://db/fleet").description == "postgres://db/fleet")
        #expect(throws: FleetError.invalidURL("http://u:***@host/x")) { try FleetServer(uri: "http://u:pw@host/x") }
    }

    @Test func errorsAreSortedIntoRetryPauseAndRefusal() {
        #expect(FleetError.connection(server: "s", detail: "refused").isTransient)
        #expect(FleetError.server(sqlState: "57P01", message: "terminating connection due to administrator command").isTransient)
        #expect(FleetError.server(sqlState: "40P01", message: "deadlock").isTransient)
        for state in ["57014", "57P01", "57P02", "57P03", "57P05", "40001", "40003", "55P03", "25P03", "08006", "53100", "53300", "58030"] {
            let error = FleetError.server(sqlState: state, message: "m")
            #expect(error.isTransient && !error.isConfiguration, "SQLSTATE \(state)")
        }
        #expect(FleetError.server(sqlState: "57P04", message: "database dropped").isConfiguration)
        #expect(!FleetError.server(sqlState: "57P04", message: "database dropped").isTransient)
        #expect(FleetError.server(sqlState: "28P01", message: "password authentication failed").isConfiguration)
        #expect(FleetError.server(sqlState: "42501", message: "permission denied").isConfiguration)
        let data = FleetError.server(sqlState: "22007", message: "invalid date")
        #expect(!data.isTransient && !data.isConfiguration)
    }
}

/// Errors keep their text whole: with the password `p`, a refused connection's message once read
/// `***ort 1 failed` (every "p" replaced). No server is needed: nothing listens on port 1.
@Test func aOneLetterPasswordLeavesTheMessageReadable() throws {
    let server = try FleetServer(uri: "postgresql://u:p@127.0.0.1:1/db?connect_timeout=2")
    #expect(server.description == "postgresql://u:***@127.0.0.1:1/db?connect_timeout=2")
    let error = #expect(throws: FleetError.self) { try PGConnection(server: server) }
    let text = error?.description ?? ""
    #expect(text.contains("port 1 failed"), "\(text)")
    #expect(!text.contains("***ort"))
    #expect(throws: FleetError.self) { try FleetServer(uri: "postgresql://u:p@127.0.0.1/db?connect_timeout=0") }
}
