import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// What `bracelet simulate` writes on standard error: by default what it serves and, when it stops,
/// what it handed over; the command log only with --verbose; nothing at all with --quiet.
@Suite(.serialized) struct SimulateLogTests {
    /// Serves a one-day V2 bracelet with `options`, syncs it once with `listen` when `sync`, stops it
    /// with SIGTERM and returns its standard error.
    static func simulatorLog(_ options: [String], sync: Bool) async throws -> String {
        let bracelet = try builtBracelet()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("simulate-log-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let socket = folder.appendingPathComponent("sim.sock").path, log = folder.appendingPathComponent("sim.log").path
        try #require(FileManager.default.createFile(atPath: log, contents: nil))
        let simulator = Process()
        simulator.executableURL = bracelet
        simulator.arguments = ["simulate", "--model", "v2", "--days", "1", "--seed", "11", "--serve", "unix:\(socket)"] + options
        simulator.standardError = FileHandle(forWritingAtPath: log)
        simulator.standardOutput = FileHandle.nullDevice
        try simulator.run()
        defer { if simulator.isRunning { kill(simulator.processIdentifier, SIGKILL) } }
        for _ in 0..<400 where !FileManager.default.fileExists(atPath: socket) { try await Task.sleep(nanoseconds: 50_000_000) }
        try #require(FileManager.default.fileExists(atPath: socket), "the simulator did not serve within 20 s")
        if sync { try await listenOnce(bracelet, socket: socket, db: folder.appendingPathComponent("l.db").path) }
        kill(simulator.processIdentifier, SIGTERM)
        #expect(try await waitForExit(simulator, seconds: 20))
        return try String(contentsOfFile: log, encoding: .utf8)
    }

    @Test func byDefaultItSaysWhatItServesAndWhatItHandedOverOnly() async throws {
        let lines = try await Self.simulatorLog([], sync: true).split(separator: "\n")
        #expect(lines.count == 2, "\(lines)")
        #expect(lines.first?.hasPrefix("simulate: v2 bracelet V2SIM001 with 1 day(s) of history serving on unix:") == true)
        #expect(lines.last?.hasPrefix("simulate: erased V2SIM001: files=") == true)
        #expect(lines.last?.contains("files=0") == false, "the sync erased files")
    }

    @Test func verboseAddsTheCommandLog() async throws {
        let lines = try await Self.simulatorLog(["--verbose"], sync: true).split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("simulate: command ") })
        #expect(lines.contains { $0.contains("client connected") })
        #expect(lines.contains { $0.hasPrefix("simulate: erased ") && $0.contains("trailing CRC-32") })
    }

    @Test func quietWritesNothingEvenWhenItStops() async throws {
        #expect(try await Self.simulatorLog(["--quiet"], sync: false) == "")
    }
}
