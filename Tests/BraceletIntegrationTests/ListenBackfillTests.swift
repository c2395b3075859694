import Foundation
import Testing
import BraceletCapture
import BraceletDecoder
import BraceletStore
#if canImport(Glibc)
import Glibc
#endif

/// `bracelet listen --db` against `bracelet simulate` holding a backlog of several files per kind
/// (a test-only 30 000-byte size cap makes two days behave like a long absence), as two real
/// processes: every file of every kind arrives in one listen, with or without a link drop beyond
/// the first file, and the database holds exactly what was sent, every slot of the two days once.
@Suite("listen --db: a multi-file backlog in one sync", .serialized)
struct ListenBackfillTests {
    struct Run {
        var slots: [Slot]
        var beats: [Beat]
        var sentSlots: [Slot]
        var sentBeats: [Beat]
        var connections: Int
        var events: [[String: Any]]
        var status: Int32
    }

    func run(faults: [String]) async throws -> Run {
        let bracelet = try builtBracelet()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("backfill-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let socket = folder.appendingPathComponent("sim.sock").path
        let db = folder.appendingPathComponent("live.db").path
        let record = folder.appendingPathComponent("session.btsnoop").path
        let events = folder.appendingPathComponent("events.jsonl")

        let simulator = Process()
        simulator.executableURL = bracelet
        simulator.arguments = ["simulate", "--model", "v2", "--days", "2", "--seed", "5", "--serve", "unix:\(socket)",
                               "--max-file-size", "30000", "--quiet"] + faults.flatMap { ["--fault", $0] }
        simulator.standardError = FileHandle.nullDevice
        try simulator.run()
        defer { if simulator.isRunning { kill(simulator.processIdentifier, SIGKILL) } }
        for _ in 0..<200 where !FileManager.default.fileExists(atPath: socket) { try await Task.sleep(nanoseconds: 50_000_000) }

        let listen = Process()
        listen.executableURL = bracelet
        listen.arguments = ["listen", "--via", "unix:\(socket)", "--db", db, "--record", record, "--exit-after-sync",
                            "--tz", "UTC", "--age", "40", "--format", "json"]
        #expect(FileManager.default.createFile(atPath: events.path, contents: nil))
        listen.standardOutput = try FileHandle(forWritingTo: events)
        listen.standardError = FileHandle.nullDevice
        try listen.run()
        #expect(try await waitForExit(listen, seconds: 180))

        let replayed = try ReplayedCapture.load(bytes: CaptureFile.read(path: record))
        let store = try Store(path: db)
        let serial = try #require(try store.devices().first?.serial)
        let lines = try String(contentsOf: events, encoding: .utf8).split(separator: "\n")
        let objects = try lines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] ?? [:] }
        return Run(slots: try store.slots(device: serial, from: 0, to: Int64.max / 2),
                   beats: try store.beats(device: serial, fromMs: 0, toMs: Int64.max / 2),
                   sentSlots: replayed.metricsFiles.flatMap(\.slots), sentBeats: replayed.beatsFiles.flatMap(\.beats),
                   connections: replayed.statistics.connections, events: objects.filter { $0["kind"] as? String != "hr" },
                   status: listen.terminationStatus)
    }

    func check(_ run: Run) {
        #expect(run.status == 0)
        // Two days of 60 s slots, each stored once, contiguous: all four metrics files arrived.
        #expect(run.slots.count == 2 * 1_440)
        #expect(zip(run.slots, run.slots.dropFirst()).allSatisfy { $1.start == $0.start + 60 })
        #expect(run.slots == run.sentSlots)
        #expect(run.beats == run.sentBeats)
        #expect(!run.beats.isEmpty)
        let committed = run.events.filter { $0["kind"] as? String == "committed" }
        let erased = run.events.filter { $0["kind"] as? String == "erased" }
        #expect(committed.filter { $0["file_kind"] as? String == "metrics" }.count == 4)  // 936 + 936 + 936 + 72 records
        #expect(committed.filter { $0["file_kind"] as? String == "beats" }.count >= 2)
        #expect(erased.count == committed.count)
        let last = run.events.last { $0["kind"] as? String == "progress" }
        #expect(last?["files_done"] as? Int == committed.count)
        #expect(last?["files_total"] as? Int == committed.count)
        #expect(last?["bytes_done"] as? Int == last?["bytes_total"] as? Int)
    }

    @Test func everyFileOfEveryKindArrivesInOneListen() async throws {
        let clean = try await run(faults: [])
        check(clean)
        #expect(clean.connections == 1)
    }

    @Test func aLinkDropBeyondTheFirstFileEndsWithTheSameStoredResult() async throws {
        // 70 000 streamed bytes: the first two 29 988-byte metrics files are committed and erased,
        // the link drops in the third; the second connection resumes it mid-file.
        let dropped = try await run(faults: ["drop-link-at:70000"])
        check(dropped)
        #expect(dropped.connections == 2)
        let linkLost = try #require(dropped.events.firstIndex { $0["kind"] as? String == "link_lost" })
        #expect(dropped.events[..<linkLost].filter { $0["kind"] as? String == "committed" }.count == 2)
        let resumed = dropped.events[linkLost...].first { $0["kind"] as? String == "file" }
        #expect((resumed?["resume_at"] as? Int ?? 0) > 0)
    }
}
