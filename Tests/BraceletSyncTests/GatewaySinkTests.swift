import BraceletStore
import Foundation
import Testing
@testable import BraceletSync

/// `GET /metrics` from 127.0.0.1:`port` over a plain socket: the body.
private func scrapeMetrics(port: Int) throws -> String {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw POSIXError(.EIO) }
    defer { close(fd) }
    var timeout = timeval(tv_sec: 30, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
    let request = Array("GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".utf8)
    _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    var answer: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = read(fd, &buffer, buffer.count)
        if count <= 0 { break }
        answer.append(contentsOf: buffer[..<count])
    }
    let text = String(decoding: answer, as: UTF8.self)
    return text.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n")
}

/// The port the gateway's log says its metrics are served on.
private func metricsPort(in log: String) -> Int? {
    for line in log.split(separator: "\n") where line.contains("metrics on") {
        if let range = line.range(of: #"\(port [0-9]+\)"#, options: .regularExpression) {
            return Int(line[range].dropFirst(6).dropLast())
        }
        if let range = line.range(of: #"127\.0\.0\.1:[1-9][0-9]*/metrics"#, options: .regularExpression) {
            return Int(line[range].dropFirst("127.0.0.1:".count).dropLast("/metrics".count))
        }
    }
    return nil
}

/// A webhook URL's `user:password@` and `?token=` reach no output: not sync's log, not the delivery
/// log or the outbox, not `gateway status` (text or JSON), not the gateway's start-up log, not the
/// `/metrics` label. The user info is still sent, as `Authorization: Basic`. The failing sink shows
/// as failing in status and metrics.
@Test func urlCredentialsAppearInNoOutputAndAFailingSinkShows() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("g.db")
    let store = try Store(path: path)
    try enqueue(store, device: "A", date: "2024-03-01", value: 1)
    let server = try TestHTTPServer { _, _ in .respond(status: 500, body: "boom") }
    defer { server.stop() }
    let secretURL = "http://ops:pa55word@127.0.0.1:\(server.port)/in?token=t0ps3cret"
    let shownURL = "http://ops:***@127.0.0.1:\(server.port)/in?token=***"
    let secrets = ["pa55word", "t0ps3cret"]
    func clean(_ text: String) -> Bool { !secrets.contains { text.contains($0) } }

    let sync = try runBracelet(["sync", "--db", path, "--webhook", secretURL, "--once"], environment: ["BRACELET_WEBHOOK_SECRET": "k"])
    #expect(sync.status == 75, "stderr: \(sync.err)")
    #expect(sync.err.contains("-> webhook \(shownURL)"))
    #expect(clean(sync.err), "sync printed a credential: \(sync.err)")
    #expect(server.requests.first?.headers["authorization"] == "Basic " + Data("ops:pa55word".utf8).base64EncodedString())
    let entry = try #require(try store.outboxEntries().first)
    let log = try store.deliveryLog(entryID: entry.id)
    #expect(log.map(\.sink) == ["webhook \(shownURL)"])
    #expect(log.allSatisfy { clean($0.sink) && clean($0.error ?? "") } && clean(entry.lastError ?? ""))

    let json = try runBracelet(["gateway", "status", "--db", path, "--json"])
    #expect(clean(json.out), "status: \(json.out)")
    let status = try #require(try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any])
    let sink = try #require((status["sinks"] as? [[String: Any]])?.first)
    #expect(sink["sink"] as? String == "webhook \(shownURL)")
    #expect(sink["state"] as? String == "failing")
    #expect(sink["failures_in_a_row"] as? Int == 1)
    #expect((sink["last_error"] as? String)?.hasPrefix("HTTP 500 from \(shownURL): boom") == true)
    #expect(sink["last_success"] is NSNull)
    let table = try runBracelet(["gateway", "status", "--db", path])
    #expect(clean(table.out) && table.out.contains("FAILING: 1 failed attempt(s) in a row"), "status: \(table.out)")

    let gateway = try startBracelet(["gateway", "run", "--db", path, "--webhook", secretURL, "--metrics", "127.0.0.1:0"],
                                    environment: ["BRACELET_WEBHOOK_SECRET": "k"])
    let listening = waitUntil(seconds: 60) { metricsPort(in: gateway.err) != nil && gateway.err.contains("delivering to") }
    let startup = gateway.err
    let metrics = try metricsPort(in: startup).map { try scrapeMetrics(port: $0) } ?? ""
    try stop(gateway, deadlineSeconds: 30)
    #expect(listening, "stderr: \(startup)")
    #expect(startup.contains("delivering to webhook \(shownURL)"))
    #expect(clean(startup), "the gateway logged a credential: \(startup)")
    #expect(clean(metrics), "metrics: \(metrics)")
    #expect(metrics.contains("bracelet_outbox_pending{sink=\"webhook \(shownURL)\"} 1"), "metrics: \(metrics)")
    #expect(metrics.contains("bracelet_sink_failing{sink=\"webhook \(shownURL)\"} 1"), "metrics: \(metrics)")
}

/// SIGTERM ends `gateway run` within 5 s while its delivery hangs on a receiver that says nothing
/// (for 300 s, with a 600 s timeout: only the cancellation can end the request).
@Test func sigtermEndsGatewayRunWhileADeliveryHangs() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("g.db")
    let store = try Store(path: path)
    try enqueue(store, device: "A", date: "2024-03-01", value: 1)
    let server = try TestHTTPServer { _, _ in .hang(seconds: 300) }
    defer { server.stop() }
    let gateway = try startBracelet(["gateway", "run", "--db", path, "--webhook", server.url, "--timeout", "600"],
                                    environment: ["BRACELET_WEBHOOK_SECRET": "k"])
    #expect(waitUntil(seconds: 60) { server.requests.count == 1 }, "the request never came: \(gateway.err)")
    let err = gateway.err
    let elapsed = try stop(gateway, deadlineSeconds: 30)
    #expect(elapsed < 5, "gateway run took \(elapsed) s to end after SIGTERM: \(err)")
    #expect(gateway.process.terminationStatus == 0)
}
