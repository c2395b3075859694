import BraceletProtocol
import BraceletStore
import Foundation
import Glibc
import Testing

/// The malloc arenas of another thread than the main one in process `pid`: glibc maps each at a
/// 64 MiB boundary, readable and writable as far as it has grown, the rest of its 64 MiB reserved
/// without access right after it (a thread stack has its guard below, a large block none).
func threadArenaHeaps(pid: Int32) throws -> [String] {
    let heapSize: UInt64 = 64 << 20
    let maps = try String(contentsOfFile: "/proc/\(pid)/maps", encoding: .utf8).split(separator: "\n")
    let regions = maps.compactMap { line -> (start: UInt64, end: UInt64, perms: Substring, line: Substring)? in
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        let bounds = fields.first?.split(separator: "-") ?? []
        guard fields.count >= 5, bounds.count == 2, let start = UInt64(bounds[0], radix: 16), let end = UInt64(bounds[1], radix: 16) else { return nil }
        return (start, end, fields[1], line)
    }
    return zip(regions, regions.dropFirst()).compactMap { used, reserved in
        used.perms == "rw-p" && used.start % heapSize == 0 && reserved.start == used.end && reserved.perms == "---p"
            && reserved.end == used.start + heapSize ? String(used.line) : nil
    }
}

@Suite(.serialized) struct GatewayHeapTests {
    /// `gateway run` allocates from one malloc arena, whatever threads its syncs and the concurrency
    /// runtime start: each further arena keeps what was freed in it, and three of them grew the
    /// gateway's memory with every day it ran. (glibc takes the cap only for arenas made after it,
    /// so it must be set before the runtime's first threads allocate.)
    @Test func gatewayRunsOnOneMallocArena() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let served = try ServedBracelet(directory: folder, serial: "GWHA0001", model: .v2, slowMilliseconds: nil)
        defer { served.stop() }
        let db = folder + "/g.db"
        #expect(try bracelet(["gateway", "enroll", "--db", db, "--via", "unix:" + served.path, "--user", "P-1", "--tz", "UTC"]).status == 0)
        let process = Process()
        process.executableURL = try braceletBinary()
        process.arguments = ["gateway", "run", "--db", db, "--jsonl", folder + "/out.jsonl", "--interval", "3600"]
        process.standardError = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

        // After a sync and its deliveries: every kind of thread the gateway has has allocated.
        let store = try Store(path: db, readOnly: true)
        let deadline = Date().addingTimeInterval(60)
        while try store.enrolments().first?.lastSyncAt == nil || store.outboxCounts().delivered == 0 {
            guard Date() < deadline, process.isRunning else {
                Issue.record("the gateway did not sync and deliver within 60 s")
                return
            }
            try await Task.sleep(nanoseconds: 100_000_000)
        }
        let arenas = try threadArenaHeaps(pid: process.processIdentifier)
        #expect(arenas.isEmpty, "thread arenas besides the main heap: \(arenas)")
        // The check itself finds arenas where there are some: this test process has its own.
        #expect(try !threadArenaHeaps(pid: getpid()).isEmpty)
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }

    /// `listen` (and `ingest`, `recompute`, bounded by the same constructor) takes a backfill on
    /// one arena as well: checked while it stays connected after committing the sync.
    @Test func listenRunsOnOneMallocArena() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let served = try ServedBracelet(directory: folder, serial: "GWHL0001", model: .v2, slowMilliseconds: nil)
        defer { served.stop() }
        let db = folder + "/l.db"
        let process = Process()
        process.executableURL = try braceletBinary()
        process.arguments = ["listen", "--via", "unix:" + served.path, "--db", db, "--tz", "UTC", "--age", "40", "--quiet"]
        process.standardError = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

        // After the backfill is committed and summarised, listen stays for live samples. Until then
        // the file may not exist, hold no schema yet, or be locked by the backfill's load: each is
        // "not yet", not a failure.
        let deadline = Date().addingTimeInterval(60)
        while ((try? Store(path: db, readOnly: true).outboxCounts().pending) ?? 0) == 0 {
            guard Date() < deadline, process.isRunning else {
                Issue.record("listen did not store and summarise the backfill within 60 s")
                return
            }
            try await Task.sleep(nanoseconds: 100_000_000)
        }
        let arenas = try threadArenaHeaps(pid: process.processIdentifier)
        #expect(arenas.isEmpty, "thread arenas besides the main heap: \(arenas)")
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
    }
}
