import BraceletStore
import BraceletSync
import BraceletVitality
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
        gatewayA = try cluster.server(as: try admin.addGateway("gw_a"))
        gatewayB = try cluster.server(as: try admin.addGateway("gw_b"))
        reader = try cluster.server(as: try admin.addReader("rd"))
        #expect(try admin.assign(device: "A1", gateway: "gw_a") == nil)
        #expect(try admin.assign(device: "B1", gateway: "gw_b") == nil)
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

    /// The gateways' status and operator events, with one gateway's credentials: it writes and reads
    /// only its own devices' events and status and its own sinks' row (a device not assigned to it
    /// is left out of its report), changes nothing of another gateway's and cannot name another
    /// gateway; a reader reads every gateway's and writes nothing; a scorer has no right on them.
    @Test func aGatewayWritesOnlyItsOwnEventsStatusAndSinks() async throws {
        let fleet = try RoleFleet()
        func status(_ device: String, battery: Int, at: Int64) -> StudyGatewayStatus {
            let health = StudyDeviceHealth(state: "synced", lastHeardAt: at - 60_000, lastSyncAt: at - 120_000, battery: battery,
                                           batteryChange: -3, backlogBytes: 512, openEvents: battery <= 15 ? ["battery_low"] : [])
            return StudyGatewayStatus(at: at, devices: [StudyDeviceStatus(device: device, user: "P-\(device)", model: "V2", health: health),
                                                        StudyDeviceStatus(device: "X9", user: nil, model: nil, health: health)],
                                      sinks: [StudySink(name: "postgres \(device)", pending: 1, delivered: 9, dead: 0)])
        }
        for (device, server) in [("A1", fleet.gatewayA), ("B1", fleet.gatewayB)] {
            let gateway = try GatewayDatabase()
            #expect(try gateway.store.enqueueOperatorEvent(key: "event:\(device):battery_low:2026-03-01", name: "battery_low", device: device,
                                                           localDate: "2026-03-01", at: 1_772_366_400_000, detail: "battery at 12 %: charge the bracelet"))
            #expect(PostgresSink(server: server).deliver(batch: try gateway.store.outboxEntries()) == [.delivered(httpStatus: nil)])
            #expect(try await PostgresSink(server: server).report(status(device, battery: 12, at: 1_772_366_400_000)) == 1, "X9 is left out")
        }
        // An older report arriving late changes nothing; a newer one replaces it.
        #expect(try await PostgresSink(server: fleet.gatewayA).report(status("A1", battery: 90, at: 1_772_366_000_000)) == 1)
        #expect(try await PostgresSink(server: fleet.gatewayA).report(status("A1", battery: 14, at: 1_772_366_500_000)) == 1)
        let owner = try PGConnection(server: fleet.owner)
        #expect(try owner.execute("SELECT device, gateway, battery, open_events::text FROM fleet_device_status ORDER BY device").values
                == [["A1", "gw_a", "14", "{battery_low}"], ["B1", "gw_b", "12", "{battery_low}"]])
        // A report is the gateway's whole set of sinks: the one it no longer names goes, the other gateway's stay.
        var moved = status("A1", battery: 14, at: 1_772_366_600_000)
        moved.sinks = [StudySink(name: "postgres A1 moved", pending: 0, delivered: 10, dead: 0)]
        #expect(try await PostgresSink(server: fleet.gatewayA).report(moved) == 1)
        #expect(try owner.execute("SELECT gateway, sink FROM fleet_gateway_sinks ORDER BY 1, 2").values
                == [["gw_a", "postgres A1 moved"], ["gw_b", "postgres B1"]])
        let before = try ["fleet_operator_events", "fleet_device_status", "fleet_gateway_sinks"].map {
            try owner.execute("SELECT * FROM \($0) ORDER BY 1, 2").values
        }

        let hostile = try PGConnection(server: fleet.gatewayB)
        for table in ["fleet_operator_events", "fleet_device_status"] {
            #expect(try hostile.execute("SELECT DISTINCT device FROM \(table)").values == [["B1"]], "\(table) leaked A1")
        }
        #expect(try hostile.execute("SELECT DISTINCT gateway FROM fleet_gateway_sinks").values == [["gw_b"]])
        for sql in ["UPDATE fleet_device_status SET battery = 100 WHERE device = 'A1'",
                    "UPDATE fleet_gateway_sinks SET dead = 0, state = 'ok' WHERE gateway = 'gw_a'",
                    "DELETE FROM fleet_device_status WHERE device = 'A1'", "DELETE FROM fleet_gateway_sinks WHERE gateway = 'gw_a'"] {
            #expect(try hostile.execute(sql).affected == 0, "\(sql)")
        }
        let refused = [
            "INSERT INTO fleet_operator_events (device, event, outbox_key, local_date, raised_at, detail, content_hash, payload) "
                + "VALUES ('A1', 'not_heard', 'event:A1:not_heard:1', '2026-03-02', now(), 'x', 'x', '{}')",
            "UPDATE fleet_operator_events SET detail = 'x' WHERE device = 'B1'",
            "DELETE FROM fleet_operator_events WHERE device = 'B1'",
            "INSERT INTO fleet_device_status (device, gateway, state, reported_at) VALUES ('A1', 'gw_b', 'synced', now())",
            "INSERT INTO fleet_device_status (device, gateway, state, reported_at) VALUES ('A1', 'gw_b', 'synced', now() + interval '1 day') "
                + "ON CONFLICT (device) DO UPDATE SET battery = 100",
            "UPDATE fleet_device_status SET gateway = 'gw_a' WHERE device = 'B1'",
            "INSERT INTO fleet_gateway_sinks (gateway, sink, pending, delivered, dead, reported_at) VALUES ('gw_a', 'x', 0, 0, 0, now())",
            "UPDATE fleet_gateway_sinks SET gateway = 'gw_a'",
            "TRUNCATE fleet_device_status",
            "ALTER TABLE fleet_operator_events DISABLE ROW LEVEL SECURITY",
        ]
        for sql in refused {
            #expect(refusal(hostile, sql) == "42501", "not refused: \(sql)")
        }
        #expect(try ["fleet_operator_events", "fleet_device_status", "fleet_gateway_sinks"].map {
            try owner.execute("SELECT * FROM \($0) ORDER BY 1, 2").values
        } == before, "nothing of the other gateway changed")

        // A reader reads every gateway's and writes nothing; a scorer has no right on them.
        let reader = try PGConnection(server: fleet.reader)
        #expect(try reader.execute("SELECT device, event FROM fleet_operator_events ORDER BY device").values == [["A1", "battery_low"], ["B1", "battery_low"]])
        #expect(try reader.execute("SELECT gateway, sink FROM fleet_gateway_sinks ORDER BY gateway").values == [["gw_a", "postgres A1 moved"], ["gw_b", "postgres B1"]])
        let scorer = try PGConnection(server: try fleet.cluster.server(as: try FleetAdmin(server: fleet.owner).addScorer("sc_status")))
        for (table, column) in [("fleet_operator_events", "detail"), ("fleet_device_status", "state"), ("fleet_gateway_sinks", "sink")] {
            #expect(refusal(reader, "UPDATE \(table) SET \(column) = \(column)") == "42501", "reader: \(table)")
            #expect(refusal(reader, "DELETE FROM \(table)") == "42501", "reader: \(table)")
            #expect(refusal(scorer, "SELECT count(*) FROM \(table)") == "42501", "scorer: \(table)")
        }
        // A device the gateway no longer reports (its enrolment removed) leaves the fleet's status; its events stay.
        var none = status("A1", battery: 14, at: 1_772_366_700_000)
        none.devices = []
        #expect(try await PostgresSink(server: fleet.gatewayA).report(none) == 0)
        #expect(try owner.execute("SELECT device FROM fleet_device_status").values == [["B1"]])
        #expect(try owner.execute("SELECT count(*) FROM fleet_operator_events WHERE device = 'A1'").values == [["1"]])
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
