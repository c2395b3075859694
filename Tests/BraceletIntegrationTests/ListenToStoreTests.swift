import Foundation
import Testing
import BraceletCapture
import BraceletDecoder
import BraceletStore
#if canImport(Glibc)
import Glibc
#endif

/// The built `bracelet` next to the test bundle (or in .build/debug).
func builtBracelet() throws -> URL {
    let candidates = [
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("bracelet"),
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".build/debug/bracelet"),
    ]
    guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
        throw StoreError.invalidInput("no built bracelet at \(candidates.map(\.path)): run `swift build`, then `swift test`")
    }
    return found
}

/// Waits for a child without blocking a thread of the test pool.
func waitForExit(_ process: Process, seconds: Double) async throws -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while process.isRunning, Date() < deadline { try await Task.sleep(nanoseconds: 50_000_000) }
    return !process.isRunning
}

/// Runs `bracelet listen --via unix:SOCKET --db DB --exit-after-sync --tz UTC --age 40 --quiet` (and
/// `extra`) to its end, its output discarded; fails the test when it does not end in 120 s or fails.
func listenOnce(_ bracelet: URL, socket: String, db: String, extra: [String] = []) async throws {
    let listen = Process()
    listen.executableURL = bracelet
    listen.arguments = ["listen", "--via", "unix:\(socket)", "--db", db, "--exit-after-sync", "--tz", "UTC", "--age", "40", "--quiet"] + extra
    listen.standardOutput = FileHandle.nullDevice
    listen.standardError = FileHandle.nullDevice
    try listen.run()
    #expect(try await waitForExit(listen, seconds: 120))
    #expect(listen.terminationStatus == 0)
}

/// `bracelet listen --via` against `bracelet simulate`, as two real processes: the database ends up
/// with exactly the slots and beats the recorded session carried, and both files are marked erased.
@Test func listenStoresExactlyWhatTheSimulatedBraceletSent() async throws {
    let bracelet = try builtBracelet()
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("listen-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let socket = folder.appendingPathComponent("sim.sock").path
    let db = folder.appendingPathComponent("live.db").path
    let record = folder.appendingPathComponent("session.btsnoop").path

    let simulator = Process()
    simulator.executableURL = bracelet
    simulator.arguments = ["simulate", "--model", "v1", "--days", "2", "--seed", "99", "--serve", "unix:\(socket)",
                           "--fault", "lose-packet:7", "--fault", "drop-link-at:20000", "--quiet"]
    simulator.standardError = FileHandle.nullDevice
    try simulator.run()
    defer { if simulator.isRunning { kill(simulator.processIdentifier, SIGKILL) } }
    for _ in 0..<200 where !FileManager.default.fileExists(atPath: socket) { try await Task.sleep(nanoseconds: 50_000_000) }

    try await listenOnce(bracelet, socket: socket, db: db, extra: ["--record", record])

    let replayed = try ReplayedCapture.load(bytes: CaptureFile.read(path: record))
    let sentSlots = replayed.metricsFiles.flatMap(\.slots)
    let sentBeats = replayed.beatsFiles.flatMap(\.beats)
    #expect(sentSlots.count > 2 * 1400)
    #expect(replayed.statistics.connections == 2)  // the link drop and the resumed transfer

    let store = try Store(path: db)
    let serial = try #require(try store.devices().first?.serial)
    #expect(try store.slots(device: serial, from: 0, to: Int64.max / 2) == sentSlots)
    #expect(try store.beats(device: serial, fromMs: 0, toMs: Int64.max / 2) == sentBeats)
    #expect(try store.transferProgress(device: serial, fileKind: "metrics")?.state == .erased)
    #expect(try store.transferProgress(device: serial, fileKind: "beats")?.state == .erased)
    #expect(try store.outboxCounts().pending > 0)
}
