import BraceletGateway
import Foundation
import Glibc
import Testing

/// A TCP connection to the metrics server on loopback (IPv4 or IPv6), with every wait bounded.
private final class Client {
    let fd: Int32

    init(port: UInt16, v6: Bool = false) throws {
        fd = socket(v6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        let result = MetricsServer.withLoopbackAddress(v6: v6, port: port) { connect(fd, $0, $1) }
        guard fd >= 0, result == 0 else {
            close(fd)
            throw POSIXError(.ECONNREFUSED)
        }
    }

    deinit { close(fd) }

    func send(_ text: String) {
        _ = Array(text.utf8).withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Everything the server sends until it closes, or nil when that takes longer than `seconds`.
    func readAll(within seconds: Double) -> String? {
        let deadline = Date().addingTimeInterval(seconds)
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while true {
            let left = Int32(deadline.timeIntervalSinceNow * 1_000)
            guard left > 0 else { return nil }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, left) > 0 else { return nil }
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { return String(decoding: bytes, as: UTF8.self) }
            bytes += buffer[0..<n]
        }
    }
}

@Suite(.serialized) struct MetricsServerTests {
    /// Four scrapes while 50 connections sit open without finishing a request (30 that sent nothing,
    /// 20 that sent half a request line): each scrape is answered within 1 s. One connection at a
    /// time, 3 of 4 scrapes timed out.
    @Test func scrapesAreAnsweredWhileFiftySlowConnectionsAreOpen() throws {
        let server = try MetricsServer(address: "127.0.0.1:0") { "bracelet_syncs_total 7\n" }
        defer { server.stop() }
        var slow: [Client] = []
        for index in 0..<50 {
            let client = try Client(port: server.port)
            if index >= 30 { client.send("GET /metr") }
            slow.append(client)
        }
        let scrapes = try (0..<4).map { _ in try Client(port: server.port) }
        let started = Date()
        for scrape in scrapes { scrape.send("GET /metrics HTTP/1.0\r\n\r\n") }
        for scrape in scrapes {
            let answer = scrape.readAll(within: 1)
            #expect(answer?.hasPrefix("HTTP/1.0 200 OK\r\n") == true, "no answer within 1 s")
            #expect(answer?.hasSuffix("\r\n\r\nbracelet_syncs_total 7\n") == true)
        }
        #expect(Date().timeIntervalSince(started) < 1.5)
        // The slow ones are closed at their deadline (2 s), not kept forever.
        for client in slow.prefix(3) { #expect(client.readAll(within: 4) == "") }
        withExtendedLifetime(slow) {}
    }

    /// More idle connections than the limit: the newest are served, the oldest closed.
    @Test func aScrapeIsAnsweredWhenIdleConnectionsFillTheLimit() throws {
        let server = try MetricsServer(address: "127.0.0.1:0") { "up 1\n" }
        defer { server.stop() }
        let idle = try (0..<(MetricsServer.connectionLimit + 20)).map { _ in try Client(port: server.port) }
        let scrape = try Client(port: server.port)
        scrape.send("GET /metrics HTTP/1.0\r\n\r\n")
        #expect(scrape.readAll(within: 1)?.hasSuffix("\r\n\r\nup 1\n") == true)
        // The first idle connections were closed to make room.
        #expect(idle[0].readAll(within: 1) == "")
    }

    /// The URL the gateway prints: the address it binds, the port the kernel chose, `/metrics`.
    @Test func theURLIsTheOneToScrape() throws {
        let v4 = try MetricsServer(address: "127.0.0.1:0") { "up 1\n" }
        defer { v4.stop() }
        #expect(v4.url == "http://127.0.0.1:\(v4.port)/metrics")
        let localhost = try MetricsServer(address: "localhost:0") { "up 1\n" }
        defer { localhost.stop() }
        #expect(localhost.url == "http://127.0.0.1:\(localhost.port)/metrics")
        // IPv6 loopback, where this machine has it.
        if let v6 = try? MetricsServer(address: "[::1]:0", render: { "up 6\n" }) {
            defer { v6.stop() }
            #expect(v6.url == "http://[::1]:\(v6.port)/metrics")
            let client = try Client(port: v6.port, v6: true)
            client.send("GET /metrics HTTP/1.0\r\n\r\n")
            #expect(client.readAll(within: 1)?.hasSuffix("up 6\n") == true)
        }
    }

    /// `gateway run --metrics 127.0.0.1:0` logs the URL it serves, and that URL answers.
    @Test func theGatewayPrintsAURLThatAnswers() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let log = folder + "/run.log"
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let process = Process()
        process.executableURL = try braceletBinary()
        process.arguments = ["gateway", "run", "--db", folder + "/g.db", "--jsonl", folder + "/out.jsonl", "--metrics", "127.0.0.1:0"]
        process.standardError = FileHandle(forWritingAtPath: log)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        var printed: String?
        let deadline = Date().addingTimeInterval(30)
        while printed == nil, Date() < deadline, process.isRunning {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            printed = text.split(separator: "\n").first { $0.contains("metrics on ") }.map(String.init)
            try await Task.sleep(nanoseconds: 100_000_000)
        }
        let line = try #require(printed, "no metrics line in \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
        let url = try #require(line.components(separatedBy: "metrics on ").last)
        let port = try #require(url.wholeMatch(of: /http:\/\/127\.0\.0\.1:(\d+)\/metrics/).flatMap { UInt16($0.1) }, "\(line)")
        let client = try Client(port: port)
        client.send("GET /metrics HTTP/1.0\r\n\r\n")
        #expect(client.readAll(within: 5)?.hasPrefix("HTTP/1.0 200 OK") == true)
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }
}
