import BraceletGateway
import BraceletStore
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Glibc
import Testing

@Suite struct ServiceTests {
    /// READY/STATUS/WATCHDOG reach a real datagram socket named by NOTIFY_SOCKET, and the watchdog
    /// period is half of WATCHDOG_USEC.
    @Test func notifierSendsDatagramsToTheNotifySocket() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/notify"
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        #expect(fd >= 0)
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in for (i, b) in path.utf8.enumerated() { raw[i] = b } }
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        #expect(bound == 0)
        let notifier = ServiceNotifier(environment: ["NOTIFY_SOCKET": path, "WATCHDOG_USEC": "60000000"])
        #expect(notifier.watchdogMilliseconds == 30_000)
        #expect(notifier.notify("READY=1\nSTATUS=2 bracelet(s)"))
        #expect(notifier.notify("WATCHDOG=1"))
        var buffer = [UInt8](repeating: 0, count: 512)
        let first = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
        #expect(String(decoding: buffer.prefix(max(0, first)), as: UTF8.self) == "READY=1\nSTATUS=2 bracelet(s)")
        let second = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
        #expect(String(decoding: buffer.prefix(max(0, second)), as: UTF8.self) == "WATCHDOG=1")
        // Not under systemd: nothing is sent, nothing fails.
        #expect(!ServiceNotifier(environment: [:]).notify("READY=1"))
        #expect(ServiceNotifier(environment: ["WATCHDOG_USEC": "1000000", "WATCHDOG_PID": "1"]).watchdogMilliseconds == nil)
    }

    /// The metrics are served over real HTTP on loopback, in the Prometheus text format; another
    /// address is refused.
    @Test func metricsAreServedOverHTTPOnLoopbackOnly() async throws {
        let metrics = GatewayMetrics()
        metrics.recordSync(completed: true, bytes: 4_096)
        metrics.recordSync(completed: false, bytes: 100)
        metrics.recordOperatorEvent(name: "battery_low", device: "SN000001")
        var synced = GatewayEnrolment(endpoint: "unix:/run/a.sock")
        synced.serial = "SN000001"
        synced.enrolledAt = 1_699_000_000_000
        synced.lastHeardAt = 1_700_000_500_000
        synced.lastSyncAt = 1_700_000_000_000
        synced.battery = 12
        synced.failures = 2
        var new = GatewayEnrolment(endpoint: "ble:C0:11:22:33:44:55")
        new.enrolledAt = 1_700_000_100_000
        let readings = GatewayMetrics.StoreReadings(
            enrolments: [synced, new], sinks: [SinkCounts(sink: "jsonl /tmp/x.jsonl", pending: 3, delivered: 40, dead: 1)],
            space: DatabaseSpace(databaseBytes: 5_000, filesystemBytes: 1_000_000, availableBytes: 90_000))
        let server = try MetricsServer(address: "127.0.0.1:0") { metrics.exposition(readings) }
        defer { server.stop() }
        #expect(server.port > 0)
        let (body, response) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(server.port)/metrics")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        let text = String(decoding: body, as: UTF8.self)
        #expect(text.contains("# TYPE bracelet_syncs_total counter\nbracelet_syncs_total 1\n"))
        #expect(text.contains("bracelet_failures_total 1\n"))
        #expect(text.contains("bracelet_bytes_transferred_total 4196\n"))
        #expect(text.contains("bracelet_last_sync_timestamp_seconds{device=\"SN000001\"} 1700000000\n"))
        #expect(text.contains("bracelet_outbox_pending{sink=\"jsonl /tmp/x.jsonl\"} 3\n"))
        // What the shipped alert rules read (prometheus/bracelet.rules.yml).
        for line in ["bracelet_enrolled_bracelets 2", "bracelet_enrolled_timestamp_seconds{device=\"ble:C0:11:22:33:44:55\"} 1700000100",
                     "bracelet_last_heard_timestamp_seconds{device=\"SN000001\"} 1700000500", "bracelet_sync_failures_in_a_row{device=\"SN000001\"} 2",
                     "bracelet_sync_failures_in_a_row{device=\"ble:C0:11:22:33:44:55\"} 0", "bracelet_battery_percent{device=\"SN000001\"} 12",
                     "bracelet_operator_events_total{device=\"SN000001\",event=\"battery_low\"} 1",
                     "bracelet_operator_events_total{device=\"ble:C0:11:22:33:44:55\",event=\"not_worn\"} 0",
                     "bracelet_outbox_delivered_total{sink=\"jsonl /tmp/x.jsonl\"} 40", "bracelet_outbox_dead{sink=\"jsonl /tmp/x.jsonl\"} 1",
                     "bracelet_database_size_bytes 5000", "bracelet_database_filesystem_size_bytes 1000000",
                     "bracelet_database_filesystem_avail_bytes 90000"] {
            #expect(text.contains(line + "\n"), "\(line)")
        }
        // A bracelet never heard or synced has no such sample, rather than a made-up 0.
        #expect(!text.contains("bracelet_last_sync_timestamp_seconds{device=\"ble:C0:11:22:33:44:55\"}"))
        #expect(!text.contains("bracelet_battery_percent{device=\"ble:C0:11:22:33:44:55\"}"))
        let (_, missing) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(server.port)/other")!)
        #expect((missing as? HTTPURLResponse)?.statusCode == 404)
        #expect(throws: GatewayError.metricsAddress("0.0.0.0:9464")) { _ = try MetricsServer(address: "0.0.0.0:9464") { "" } }
        #expect(throws: GatewayError.metricsAddress("192.168.1.5:9464")) { _ = try MetricsServer(address: "192.168.1.5:9464") { "" } }
    }
}
