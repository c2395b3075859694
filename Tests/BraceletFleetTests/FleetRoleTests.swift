import BraceletStore
import BraceletSync
import Foundation
import Testing
@testable import BraceletFleet

/// A fleet with two gateways, a reader and one device each, on a throwaway cluster.
final class RoleFleet {
    let cluster: TestCluster
    let owner: FleetServer
    let gatewayA: FleetServer
    let gatewayB: FleetServer
    let reader: FleetServer

    init() throws {
        cluster = try TestCluster()
        owner = try FleetServer(uri: cluster.url)
        let admin = try FleetAdmin(server: owner)
        #expect(try admin.migrate() == (0, FleetSchema.latestVersion))
        gatewayA = try RoleFleet.server(cluster, try admin.addGateway("gw_a"))
        gatewayB = try RoleFleet.server(cluster, try admin.addGateway("gw_b"))
        reader = try RoleFleet.server(cluster, try admin.addReader("rd"))
        #expect(try admin.assign(device: "A1", gateway: "gw_a") == nil)
        #expect(try admin.assign(device: "B1", gateway: "gw_b") == nil)
    }

    /// The cluster's URL with another role's credentials.
    static func server(_ cluster: TestCluster, _ credentials: FleetAdmin.Credentials) throws -> FleetServer {
        let hostAndDatabase = cluster.url.split(separator: "@", maxSplits: 1)[1]
        return try FleetServer(uri: "postgresql://\(credentials.role):\(credentials.password)@\(hostAndDatabase)")
    }
}

/// Runs `sql` and returns the SQLSTATE it was refused with, `nil` when the server ran it.
func refusal(_ connection: PGConnection, _ sql: String) -> String? {
    do { try connection.execute(sql) } catch let FleetError.server(state, _) { return state } catch { return "other: \(error)" }
    return nil
}

@Suite(.serialized, .enabled(if: TestCluster.available, TestCluster.skipReason))
struct FleetRoleTests {
    /// With one gateway's credentials: every way at another gateway's rows, at the schema or at the
    /// password catalogs is refused by the server, and nothing of the other gateway leaks or changes.
    @Test func aHostileGatewayReadsAndChangesNothingOfAnother() throws {
        let fleet = try RoleFleet()
        let gatewayA = try GatewayDatabase()
        try gatewayA.day("A1", "2026-03-01", steps: 100)
        try gatewayA.day("A1", "2026-03-02", steps: 200)
        try gatewayA.session("A1", start: 1_772_400_000, date: "2026-03-02", minutes: 420)
        let entriesA = try gatewayA.store.outboxEntries()
        #expect(PostgresSink(server: fleet.gatewayA).deliver(batch: entriesA) == Array(repeating: .delivered(httpStatus: nil), count: 3))
        let gatewayB = try GatewayDatabase()
        try gatewayB.day("B1", "2026-03-01", steps: 5)
        #expect(PostgresSink(server: fleet.gatewayB).deliver(batch: try gatewayB.store.outboxEntries()) == [.delivered(httpStatus: nil)])
        let before = try fleetRows(fleet.owner)
        #expect(before.count == 4)

        let hostile = try PGConnection(server: fleet.gatewayB)
        // Reading: only its own device, whatever the query asks for.
        for table in ["fleet_daily_summaries", "fleet_sleep_sessions", "fleet_devices", "fleet_assignments"] {
            #expect(try hostile.execute("SELECT count(*) FROM \(table) WHERE device = 'A1'").values == [["0"]], "\(table) leaked A1")
            #expect(try hostile.execute("SELECT DISTINCT device FROM \(table)").values.allSatisfy { $0 == ["B1"] }, "\(table)")
        }
        #expect(try hostile.execute("SELECT count(*) FROM fleet_daily_summaries WHERE payload LIKE '%steps%'").values == [["1"]])
        // Changing another gateway's rows: invisible, so no row matches.
        for sql in ["UPDATE fleet_daily_summaries SET payload = '{}' WHERE device = 'A1'",
                    "UPDATE fleet_sleep_sessions SET payload = '{}', version = 99",
                    "UPDATE fleet_devices SET user_id = 'stolen' WHERE device = 'A1'"] {
            #expect(try hostile.execute(sql).affected == 0, "\(sql)")
        }
        // Everything else is refused outright (42501: insufficient privilege, or a row-level
        // security violation, which PostgreSQL reports with the same code).
        let refused = [
            "DELETE FROM fleet_daily_summaries WHERE device = 'A1'",
            "DELETE FROM fleet_daily_summaries WHERE device = 'B1'",
            "TRUNCATE fleet_daily_summaries",
            "UPDATE fleet_daily_summaries SET device = 'A1' WHERE device = 'B1'",
            "INSERT INTO fleet_daily_summaries (device, kind, local_date, version, content_hash, outbox_key, payload) "
                + "VALUES ('A1', 'daily:daily', '2026-03-09', 1, 'x', 'k', '{}')",
            "INSERT INTO fleet_daily_summaries (device, kind, local_date, version, content_hash, outbox_key, payload) "
                + "VALUES ('A1', 'daily:daily', '2026-03-01', 9, 'x', 'k', '{}') ON CONFLICT (device, kind, local_date) "
                + "DO UPDATE SET payload = excluded.payload, version = excluded.version",
            "INSERT INTO fleet_sleep_sessions (device, session_start, session_stop, local_date, version, content_hash, outbox_key, payload) "
                + "VALUES ('A1', 1, 2, '2026-03-01', 1, 'x', 'k', '{}')",
            "INSERT INTO fleet_devices (device, last_sync_at) VALUES ('A1', now()) ON CONFLICT (device) DO UPDATE SET user_id = 'x'",
            "INSERT INTO fleet_devices (device, last_sync_at) VALUES ('NEW9', now())",
            "INSERT INTO fleet_assignments (device, gateway) VALUES ('NEW9', 'gw_b')",
            "UPDATE fleet_assignments SET gateway = 'gw_b' WHERE device = 'A1'",
            "DELETE FROM fleet_assignments",
            "SELECT * FROM fleet_gateways",
            "CREATE TABLE stolen (x text)",
            "CREATE TEMPORARY TABLE stolen (x text)",
            "CREATE SCHEMA stolen",
            "CREATE FUNCTION public.f() RETURNS int LANGUAGE sql AS 'SELECT 1'",
            "CREATE FUNCTION pg_temp.f() RETURNS int LANGUAGE sql AS 'SELECT 1'",
            "CREATE VIEW everything AS SELECT * FROM fleet_daily_summaries",
            "ALTER TABLE fleet_daily_summaries DISABLE ROW LEVEL SECURITY",
            "ALTER TABLE fleet_daily_summaries ADD COLUMN x text",
            "DROP POLICY gateway_assigned ON fleet_daily_summaries",
            "DROP TABLE fleet_sleep_sessions",
            "ALTER ROLE gw_b BYPASSRLS",
            "GRANT bracelet_reader TO gw_b",
            "SET ROLE bracelet",
            "SET ROLE gw_a",
            "SELECT rolname, rolpassword FROM pg_authid",
            "SELECT usename, passwd FROM pg_shadow",
            "SELECT pg_read_file('postgresql.conf')",
            "COPY fleet_daily_summaries TO PROGRAM 'cat'",
            "COPY fleet_daily_summaries TO '/tmp/stolen.csv'",
        ]
        for sql in refused {
            #expect(refusal(hostile, sql) == "42501", "not refused: \(sql)")
        }
        // Turning row security off does not show more: the server refuses the query instead.
        try hostile.execute("SET row_security = off")
        #expect(refusal(hostile, "SELECT * FROM fleet_daily_summaries") == "42501")
        try hostile.execute("RESET row_security")
        // The password view readable by all shows no verifier.
        #expect(try hostile.execute("SELECT DISTINCT passwd FROM pg_user").values.allSatisfy { $0 == ["********"] || $0 == [nil] })

        // The other gateway's rows, as the owner sees them: all there, unchanged.
        #expect(try fleetRows(fleet.owner) == before)
        #expect(try PGConnection(server: fleet.owner).execute("SELECT user_id FROM fleet_devices ORDER BY device").values == [[nil], [nil]])
    }

    /// A reader reads every gateway's rows and changes nothing.
    @Test func aReaderReadsEverythingAndWritesNothing() throws {
        let fleet = try RoleFleet()
        let gatewayA = try GatewayDatabase()
        try gatewayA.day("A1", "2026-03-01", steps: 100)
        #expect(PostgresSink(server: fleet.gatewayA).deliver(batch: try gatewayA.store.outboxEntries()) == [.delivered(httpStatus: nil)])
        let reader = try PGConnection(server: fleet.reader)
        #expect(try reader.execute("SELECT device FROM fleet_daily_summaries").values == [["A1"]])
        #expect(try reader.execute("SELECT device, gateway FROM fleet_assignments ORDER BY device").values == [["A1", "gw_a"], ["B1", "gw_b"]])
        for sql in ["UPDATE fleet_daily_summaries SET payload = '{}'", "DELETE FROM fleet_devices",
                    "INSERT INTO fleet_assignments (device, gateway) VALUES ('X', 'gw_a')", "CREATE TABLE stolen (x text)"] {
            #expect(refusal(reader, sql) == "42501", "not refused: \(sql)")
        }
        #expect(try FleetReader(server: fleet.reader).status().map(\.device) == ["A1"])
    }

    /// A device the gateway was never given is refused with its own error; the gateway's other
    /// devices are delivered, and its entries stay queued until the device is assigned.
    @Test func anUnassignedDeviceStaysQueuedWithAClearError() async throws {
        let fleet = try RoleFleet()
        let gateway = try GatewayDatabase()
        try gateway.day("X9", "2026-03-01", steps: 1)
        try gateway.day("A1", "2026-03-01", steps: 2)
        try gateway.day("X9", "2026-03-02", steps: 3)
        let forwarder = FleetForwarder(store: gateway.store, sink: PostgresSink(server: fleet.gatewayA),
                                       policy: try RetryPolicy(baseDelayMilliseconds: 1, maxDelayMilliseconds: 2), batchSize: 1)
        let first = try await forwarder.drain()
        #expect(first.delivered == 1 && first.dead == 0)
        let reason = try #require(first.pausedReason)
        #expect(reason.contains("device X9 is not assigned to gateway gw_a") && reason.contains("bracelet fleet assign X9 --gateway gw_a"))
        #expect(try gateway.store.outboxCounts() == OutboxCounts(pending: 2, delivered: 1, dead: 0))
        // One entry a batch: the refused device went last (else its refusal would have paused the pass before
        // A1), and its first entry carries the refusal; the pass stopped there.
        let pending = try gateway.store.outboxEntries(state: .pending)
        #expect(pending.map(\.device) == ["X9", "X9"])
        #expect(pending.contains { ($0.lastError ?? "").contains("device X9 is not assigned") })

        #expect(try FleetAdmin(server: fleet.owner).assign(device: "X9", gateway: "gw_a") == nil)
        let second = try await forwarder.drain()
        #expect(second.delivered == 2 && second.pausedReason == nil)
        #expect(try fleetRows(fleet.owner).map { $0[0] } == ["A1/daily:daily/2026-03-01", "X9/daily:daily/2026-03-01", "X9/daily:daily/2026-03-02"])
    }

    /// Only the owner changes the schema: a gateway finding it behind is told who upgrades it.
    @Test func onlyTheOwnerMigrates() throws {
        let fleet = try RoleFleet()
        let owner = try PGConnection(server: fleet.owner)
        try owner.execute("UPDATE fleet_schema SET version = 3")
        let gateway = try GatewayDatabase()
        try gateway.day("A1", "2026-03-01", steps: 1)
        let outcome = PostgresSink(server: fleet.gatewayA).deliver(batch: try gateway.store.outboxEntries())[0]
        #expect(outcome.label == "configuration_failure")
        #expect((outcome.reason ?? "").contains("bracelet fleet migrate --postgres OWNER_URL"))
        #expect(throws: FleetError.self) { try FleetAdmin(server: fleet.gatewayA).migrate() }
    }
}

@Suite struct FleetRoleNameTests {
    /// Role names go into CREATE ROLE (quoted anyway): only plain lowercase names, never a system or group role.
    @Test func onlyPlainNamesThatAreNoSystemOrGroupRole() throws {
        for good in ["gw1", "gw_ward3", "_x", String(repeating: "a", count: 63)] { try FleetAdmin.checkRoleName(good) }
        for bad in ["", "Ward3", "ward 3", "3ward", "gw-1", "gw;drop", String(repeating: "a", count: 64), "pg_monitor",
                    "bracelet_gateway", "bracelet_reader", "postgres", "public"] {
            #expect(throws: FleetError.self, "\(bad)") { try FleetAdmin.checkRoleName(bad) }
        }
        #expect(FleetAdmin.newPassword().count == 32 && FleetAdmin.newPassword() != FleetAdmin.newPassword())
    }
}

@Suite struct TLSAdviceTests {
    /// libpq's TLS failures (its words, as it prints them) get advice naming the setting to change;
    /// other connection failures stay transient.
    @Test func eachTLSFailureNamesWhatToFix() throws {
        let server = try FleetServer(uri: "postgresql://gw:pw@db.example.org/fleet?sslmode=verify-full")
        let cases = [
            "server certificate for \"other.example\" does not match host name \"db.example.org\"": "issued for another name",
            "SSL error: certificate verify failed": "not signed by the CA",
            "root certificate file \"/root/.postgresql/root.crt\" does not exist": "set sslrootcert=",
            "server does not support SSL, but SSL was required": "does not offer TLS",
        ]
        for (detail, advice) in cases {
            let error = PGConnection.loginError("connection to server at \"db.example.org\" failed: \(detail)", server: server)
            guard case let .tls(_, _, given) = error else { Issue.record("\(detail) gave \(error)"); continue }
            #expect(given.contains(advice))
            #expect(error.isConfiguration && !error.isTransient)
        }
        #expect(PGConnection.loginError("Connection refused", server: server).isTransient)
    }
}
