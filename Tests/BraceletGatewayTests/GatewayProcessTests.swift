import BraceletProtocol
import BraceletStore
import Foundation
import Glibc
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The built `bracelet` executable (next to the test bundle, or in .build/debug).
func braceletBinary() throws -> URL {
    let candidates = [
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("bracelet"),
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".build/debug/bracelet"),
    ]
    guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
        throw StoreError.invalidInput("no bracelet executable at \(candidates.map(\.path)); run swift build first")
    }
    return found
}

/// Runs `bracelet` to its end; returns its status, standard output and standard error (read
/// after the output: enough for the short messages of the commands tested here).
@discardableResult
func bracelet(_ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
    let process = Process()
    process.executableURL = try braceletBinary()
    process.arguments = arguments
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    let errors = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self), String(decoding: errors, as: UTF8.self))
}

/// Runs `executable` for at most `seconds` (a command that went on where it should have stopped
/// would run a gateway); its status (nil when it had to be ended) and standard error.
func runBounded(_ executable: URL, _ arguments: [String], seconds: Double = 30) throws -> (status: Int32?, err: String) {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    let err = Pipe()
    process.standardOutput = FileHandle.nullDevice
    process.standardError = err
    let ended = DispatchSemaphore(value: 0)
    process.terminationHandler = { _ in ended.signal() }
    try process.run()
    var timedOut = false
    if ended.wait(timeout: .now() + seconds) == .timedOut {
        timedOut = true
        process.terminate()
        process.waitUntilExit()
    }
    let errors = err.fileHandleForReading.readDataToEndOfFile()
    return (timedOut ? nil : process.terminationStatus, String(decoding: errors, as: UTF8.self))
}

/// A bound Unix datagram socket standing in for systemd's notify socket.
final class NotifySocket {
    let path: String
    let fd: Int32
    private(set) var messages: [String] = []

    init(path: String) {
        self.path = path
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in for (i, b) in path.utf8.enumerated() { raw[i] = b } }
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
    }

    deinit { close(fd) }

    /// Reads every datagram waiting.
    func drain() {
        var buffer = [UInt8](repeating: 0, count: 1_024)
        while true {
            let n = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            guard n > 0 else { return }
            messages.append(String(decoding: buffer.prefix(n), as: UTF8.self))
        }
    }
}

@Suite(.serialized) struct GatewayProcessTests {
    /// `bracelet gateway run` as systemd runs it: READY=1 and WATCHDOG=1 on the notify socket, one
    /// bracelet synced and delivered to JSON Lines, a second one enrolled while it runs picked up on
    /// SIGHUP, metrics over HTTP, and SIGTERM ending it cleanly (status 0, STOPPING=1).
    @Test func runsAsANotifyServiceAndStopsCleanlyOnSIGTERM() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let a = try ServedBracelet(directory: folder, serial: "GWPA0001", model: .v2, slowMilliseconds: nil)
        let b = try ServedBracelet(directory: folder, serial: "GWPB0001", model: .v1, slowMilliseconds: nil)
        defer { a.stop(); b.stop() }
        let db = folder + "/g.db", jsonl = folder + "/out.jsonl", log = folder + "/run.log"
        #expect(try bracelet(["gateway", "enroll", "--db", db, "--via", "unix:" + a.path, "--user", "P-1", "--tz", "UTC"]).status == 0)
        let notify = NotifySocket(path: folder + "/notify")

        let process = Process()
        process.executableURL = try braceletBinary()
        process.arguments = ["gateway", "run", "--db", db, "--jsonl", jsonl, "--metrics", "127.0.0.1:0", "--interval", "3600"]
        var environment = ProcessInfo.processInfo.environment
        environment["NOTIFY_SOCKET"] = notify.path
        environment["WATCHDOG_USEC"] = "400000"
        environment["WATCHDOG_PID"] = nil
        process.environment = environment
        try #require(FileManager.default.createFile(atPath: log, contents: nil))
        process.standardError = FileHandle(forWritingAtPath: log)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

        func waitFor(_ what: String, seconds: Double = 60, _ condition: () throws -> Bool) async throws {
            let deadline = Date().addingTimeInterval(seconds)
            while try !condition() {
                guard Date() < deadline, process.isRunning else {
                    Issue.record("\(what) did not happen; log: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
                    throw CancellationError()
                }
                try await Task.sleep(nanoseconds: 100_000_000)
            }
        }
        try await waitFor("READY=1") { notify.drain(); return notify.messages.contains { $0.hasPrefix("READY=1") } }
        let store = try Store(path: db, readOnly: true)
        try await waitFor("the first bracelet synced and delivered") {
            try store.enrolments().first?.lastSyncAt != nil && store.outboxCounts().pending == 0 && store.outboxCounts().delivered > 0
        }
        let lines = try String(contentsOfFile: jsonl, encoding: .utf8).split(separator: "\n")
        #expect(lines.contains { $0.contains("\"device\":\"GWPA0001\"") })

        #expect(try bracelet(["gateway", "enroll", "--db", db, "--via", "unix:" + b.path, "--user", "P-2", "--tz", "UTC"]).status == 0)
        kill(process.processIdentifier, SIGHUP)
        try await waitFor("the bracelet enrolled while running synced", seconds: 30) {
            try store.enrolments().first { $0.endpoint == "unix:" + b.path }?.serial == "GWPB0001"
        }

        let text = try String(contentsOfFile: log, encoding: .utf8)
        let url = try #require(text.split(separator: "metrics on ").last?.prefix { !$0.isWhitespace })
        let (body, _) = try await URLSession.shared.data(from: URL(string: String(url))!)
        let metrics = String(decoding: body, as: UTF8.self)
        #expect(metrics.contains("bracelet_last_sync_timestamp_seconds{device=\"GWPA0001\"}"))
        #expect(metrics.contains("bracelet_last_sync_timestamp_seconds{device=\"GWPB0001\"}"))
        let syncs = metrics.split(separator: "\n").first { $0.hasPrefix("bracelet_syncs_total ") }.flatMap { Int($0.split(separator: " ")[1]) }
        #expect((syncs ?? 0) >= 2)

        notify.drain()
        // Every 200 ms while the schedule turns (WATCHDOG_USEC 400 ms), not once: a schedule that
        // sleeps longer than the watchdog allows would have systemd kill a healthy gateway.
        #expect(notify.messages.filter { $0 == "WATCHDOG=1" }.count >= 5)
        #expect(notify.messages.contains { $0.contains("STATUS=") })
        kill(process.processIdentifier, SIGTERM)
        try await waitFor("exit after SIGTERM", seconds: 20) { !process.isRunning } 
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        notify.drain()
        #expect(notify.messages.contains("STOPPING=1"))
        let status = try bracelet(["gateway", "status", "--db", db, "--json"])
        #expect(status.status == 0)
        #expect(status.out.contains("\"serial\":\"GWPB0001\""))
    }
}
