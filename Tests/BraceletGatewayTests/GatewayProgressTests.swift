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

        let store = try Store(path: db, readOnly: true)
        let lines = try await journalOfGateway(["--db", db, "--interval", "3600"], log: log) {
            try store.enrolments().first?.lastSyncAt != nil
        }
        let endpoint = "unix:" + bracelet.path
        let progress = lines.filter { $0.hasPrefix("<6>gateway: \(endpoint): backlog ") || $0.hasPrefix("<6>gateway: \(endpoint): recomputing: ") }
        #expect(!progress.isEmpty, "\(lines)")
        #expect(progress.contains { $0.contains(" MB (") }, "\(progress)")
        // Each comes before the sync's end line, which says how long it took.
        let ended = try #require(lines.firstIndex { $0.contains(": synced: ") })
        #expect(lines.firstIndex(of: try #require(progress.last)).map { $0 < ended } == true)
    }
}

extension GatewayProgressTests {
    /// A strap's session is a stream with no end: once the gateway knows it is one, it says so once
    /// and shows no progress for it (no phase repeated every interval while it streams), though its
    /// days are recomputed every second here (--interval 1).
    @Test func aStrapStreamingGetsNoProgressLines() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let strap = try ServedSensor(directory: folder, profile: .heartRate, serial: "HRPR0001")
        defer { strap.stop() }
        let db = folder + "/g.db", log = folder + "/run.log"
        #expect(try braceletRun(["gateway", "enroll", "--db", db, "--via", "unix:" + strap.path, "--tz", "UTC", "--age", "40"]) == 0)

        // Streaming for a few recomputes: 6 values kept (stored every 5 s), then 3 s more.
        let store = try Store(path: db, readOnly: true)
        let lines = try await journalOfGateway(["--db", db, "--interval", "1"], log: log, thenSeconds: 3) {
            try (store.enrolments().first?.samplesKept ?? 0) >= 6
        }
        let endpoint = "unix:" + strap.path
        let streaming = try #require(lines.firstIndex { $0.hasPrefix("<6>gateway: \(endpoint) (HRPR0001): heart-rate") && $0.hasSuffix("; kept while it streams") },
                                     "\(lines)")
        let ended = try #require(lines.firstIndex { $0.contains("\(endpoint) (HRPR0001): sensor session ended") }, "\(lines)")
        #expect(ended > streaming)
        let shownWhileStreaming = lines[streaming..<ended].filter {
            $0.contains("gateway: \(endpoint): ") && ($0.contains("asking the bracelet") || $0.contains("recomputing:"))
        }
        #expect(shownWhileStreaming.isEmpty, "\(shownWhileStreaming)")
        #expect(try store.enrolments().first.map { $0.samplesKept >= 6 } == true)
    }
}

/// The journal of `gateway run ARGUMENTS` (progress every 0.3 s, as under systemd) written to `log`:
/// it runs until `done` holds (at most 120 s) and `thenSeconds` more, then gets SIGTERM and must end
/// within 20 s. Its lines, each with its journal priority.
func journalOfGateway(_ arguments: [String], log: String, thenSeconds: Double = 0, until done: () throws -> Bool) async throws -> [String] {
    let process = Process()
    process.executableURL = try braceletBinary()
    process.arguments = ["gateway", "run"] + arguments + ["--progress-interval", "0.3"]
    var environment = ProcessInfo.processInfo.environment
    environment["JOURNAL_STREAM"] = "8:4242"
    process.environment = environment
    _ = FileManager.default.createFile(atPath: log, contents: nil)
    process.standardError = FileHandle(forWritingAtPath: log)
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
    let deadline = Date().addingTimeInterval(120)
    while try !done(), Date() < deadline, process.isRunning { try await Task.sleep(nanoseconds: 100_000_000) }
    try await Task.sleep(nanoseconds: UInt64(thenSeconds * 1e9))
    kill(process.processIdentifier, SIGTERM)
    let stopped = Date().addingTimeInterval(20)
    while process.isRunning, Date() < stopped { try await Task.sleep(nanoseconds: 100_000_000) }
    #expect(!process.isRunning)
    return try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map(String.init)
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
