import BraceletStore
import Foundation
import Glibc
import Testing

/// `gateway run` under systemd shows a bracelet's first backfill as it goes: while the sync lasts
/// longer than the progress interval, a line every interval with its transfer (files, bytes, rate,
/// time left) and then its recompute, each with the journal's priority; the run stays bounded.
@Suite(.serialized) struct GatewayProgressTests {
    @Test func aBackfillGetsAProgressLineEveryInterval() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let bracelet = try ServedBracelet(directory: folder, serial: "GWPR0001", model: .v2, slowMilliseconds: nil)
        defer { bracelet.stop() }
        let db = folder + "/g.db", log = folder + "/run.log"
        #expect(try braceletRun(["gateway", "enroll", "--db", db, "--via", "unix:" + bracelet.path, "--tz", "UTC", "--age", "40"]) == 0)

        let process = Process()
        process.executableURL = try braceletBinary()
        process.arguments = ["gateway", "run", "--db", db, "--interval", "3600", "--progress-interval", "0.3"]
        var environment = ProcessInfo.processInfo.environment
        environment["JOURNAL_STREAM"] = "8:4242"
        process.environment = environment
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: log)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let store = try Store(path: db, readOnly: true)
        let deadline = Date().addingTimeInterval(120)
        while try store.enrolments().first?.lastSyncAt == nil, Date() < deadline, process.isRunning {
            try await Task.sleep(nanoseconds: 100_000_000)
        }
        kill(process.processIdentifier, SIGTERM)
        let stopped = Date().addingTimeInterval(20)
        while process.isRunning, Date() < stopped { try await Task.sleep(nanoseconds: 100_000_000) }
        #expect(!process.isRunning)

        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map(String.init)
        let endpoint = "unix:" + bracelet.path
        let progress = lines.filter { $0.hasPrefix("<6>gateway: \(endpoint): backlog ") || $0.hasPrefix("<6>gateway: \(endpoint): recomputing: ") }
        #expect(!progress.isEmpty, "\(lines)")
        #expect(progress.contains { $0.contains(" MB (") }, "\(progress)")
        // Each comes before the sync's end line, which says how long it took.
        let ended = try #require(lines.firstIndex { $0.contains(": synced: ") })
        #expect(lines.firstIndex(of: try #require(progress.last)).map { $0 < ended } == true)
    }
}

/// Runs `bracelet` with its output discarded; its exit status, or -1 when it did not end within a minute.
func braceletRun(_ arguments: [String]) throws -> Int32 {
    let process = Process()
    process.executableURL = try braceletBinary()
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    let deadline = Date().addingTimeInterval(60)
    while process.isRunning, Date() < deadline { usleep(20_000) }
    guard !process.isRunning else {
        kill(process.processIdentifier, SIGKILL)
        return -1
    }
    return process.terminationStatus
}
