import BraceletStore
import Foundation
import Testing
@testable import BraceletSync

/// A webhook receiver that keeps the keys it accepted: a new key is accepted (200) and counted, a
/// known key is answered 409 and not counted again. It also checks every signature.
final class KeyKeepingReceiver: @unchecked Sendable {
    private let lock = NSLock()
    private var acceptedKeys: [String] = []
    private var duplicateCount = 0
    private var badSignatureCount = 0
    let server: TestHTTPServer

    init(secret: String, delaySeconds: Double) throws {
        let box = Box()
        server = try TestHTTPServer { request, _ in
            Thread.sleep(forTimeInterval: delaySeconds)
            return box.receiver?.receive(request, secret: secret) ?? .respond(status: 503, body: "starting")
        }
        box.receiver = self
    }

    final class Box: @unchecked Sendable { weak var receiver: KeyKeepingReceiver? }

    func receive(_ request: TestHTTPServer.Request, secret: String) -> TestHTTPServer.Action {
        let expected = "sha256=" + HMACSHA256.hex(key: Array(secret.utf8), message: Array(request.body))
        return lock.withLock {
            guard request.headers["x-bracelet-signature"] == expected, let key = request.headers["idempotency-key"] else {
                badSignatureCount += 1
                return .respond(status: 401, body: "bad signature")
            }
            if acceptedKeys.contains(key) {
                duplicateCount += 1
                return .respond(status: 409, body: "already have \(key)")
            }
            acceptedKeys.append(key)
            return .respond(status: 200, body: "")
        }
    }

    var accepted: [String] { lock.withLock { acceptedKeys } }
    var duplicates: Int { lock.withLock { duplicateCount } }
    var badSignatures: Int { lock.withLock { badSignatureCount } }
}

/// The `bracelet` executable next to the test bundle (`swift build` puts both in the same folder).
func braceletExecutable() throws -> URL {
    let candidates = [
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("bracelet"),
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".build/debug/bracelet"),
    ]
    guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
        throw StoreError.invalidInput("no bracelet executable at \(candidates.map(\.path)); run `swift build --product bracelet` first")
    }
    // `swift test` recompiles the modules but does not relink the executable: refuse a binary older
    // than the objects it is made of.
    let built = try modificationDate(found)
    for module in ["BraceletCLI", "BraceletSync", "BraceletStore"] {
        let objects = found.deletingLastPathComponent().appendingPathComponent("\(module).build")
        for case let file as URL in FileManager.default.enumerator(at: objects, includingPropertiesForKeys: nil) ?? .init()
        where file.pathExtension == "o" {
            if try modificationDate(file) > built {
                throw StoreError.invalidInput("\(found.path) is older than \(file.lastPathComponent); run `swift build --product bracelet` first")
            }
        }
    }
    return found
}

private func modificationDate(_ url: URL) throws -> Date {
    try FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date ?? .distantPast
}

/// THE KILL TEST: `bracelet sync` is killed with SIGKILL at random moments mid-delivery, 20 times,
/// then run to the end. Every entry must be delivered, and the key-keeping receiver must have
/// counted each key exactly once, in order per device.
@Test(.timeLimit(.minutes(5))) func killingSyncAtRandomMomentsLosesNothingAndCountsEachKeyOnce() async throws {
    let executable = try braceletExecutable()
    let folder = try TemporaryFolder()
    let path = folder.path("kill.db")
    let store = try Store(path: path)
    var keys: [String] = []
    for day in 1...100 {
        for device in ["K1", "K2", "K3"] {
            keys.append(try enqueue(store, device: device, date: String(format: "2024-01-%02d", (day - 1) % 28 + 1),
                                    value: day, kind: ["daily", "late", "later", "latest"][(day - 1) / 28]))
        }
        if day % 4 == 0 {
            // A recompute of an earlier day: a second version queued behind the first.
            keys.append(try enqueue(store, device: "K1", date: String(format: "2024-01-%02d", (day - 2) % 28 + 1), value: 1_000 + day))
        }
    }
    #expect(Set(keys).count == keys.count)
    let secret = "kill-test-secret"
    let receiver = try KeyKeepingReceiver(secret: secret, delaySeconds: 0.010)
    defer { receiver.server.stop() }

    func startSync() throws -> Process {
        let process = Process()
        process.executableURL = executable
        process.arguments = ["sync", "--db", path, "--webhook", receiver.server.url, "--secret", secret, "--once", "--quiet",
                             "--base-delay", "0.05", "--max-delay", "0.2", "--timeout", "5"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    var killedWhileRunning = 0
    var deliveredBeforeEachKill: [Int] = []
    for _ in 0..<20 {
        let process = try startSync()
        try await Task.sleep(nanoseconds: UInt64.random(in: 20_000_000...300_000_000))
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            killedWhileRunning += 1
        }
        process.waitUntilExit()
        deliveredBeforeEachKill.append(try store.outboxCounts().delivered)
    }
    let last = try startSync()
    last.waitUntilExit()
    #expect(last.terminationStatus == 0)

    #expect(killedWhileRunning >= 15, "most runs should be killed mid-way; only \(killedWhileRunning) were")
    #expect(try store.outboxCounts() == OutboxCounts(pending: 0, delivered: keys.count, dead: 0))
    let accepted = receiver.accepted
    #expect(accepted.count == keys.count, "each key counted exactly once")
    #expect(Set(accepted) == Set(keys))
    #expect(receiver.badSignatures == 0)
    for device in ["K1", "K2", "K3"] {
        #expect(accepted.filter { $0.hasPrefix(device + "/") } == keys.filter { $0.hasPrefix(device + "/") }, "order of \(device)")
    }
    print("kill test: \(keys.count) entries, \(killedWhileRunning) kills mid-run, delivered after each run \(deliveredBeforeEachKill), "
        + "\(receiver.duplicates) re-deliveries answered 409")
}

/// The same with the JSON Lines sink: after SIGKILLs mid-run every line parses, every key is there,
/// and the only duplicates are whole lines repeating a key (which readers dedupe).
@Test(.timeLimit(.minutes(5))) func killingSyncToJSONLinesLosesNothing() async throws {
    let executable = try braceletExecutable()
    let folder = try TemporaryFolder()
    let path = folder.path("kill.db")
    let output = folder.path("out.jsonl")
    let store = try Store(path: path)
    var keys: [String] = []
    for index in 0..<1_200 {
        let date = String(format: "2024-%02d-%02d", index / 28 % 12 + 1, index % 28 + 1)
        keys.append(try enqueue(store, device: "J\(index % 2)", date: date, value: index, kind: "k\(index / 336)"))
    }
    var killed = 0
    for _ in 0..<10 {
        let process = Process()
        process.executableURL = executable
        process.arguments = ["sync", "--db", path, "--jsonl", output, "--once", "--quiet"]
        try process.run()
        try await Task.sleep(nanoseconds: UInt64.random(in: 30_000_000...200_000_000))
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            killed += 1
        }
        process.waitUntilExit()
    }
    let last = Process()
    last.executableURL = executable
    last.arguments = ["sync", "--db", path, "--jsonl", output, "--once", "--quiet"]
    try last.run()
    last.waitUntilExit()
    #expect(last.terminationStatus == 0)
    #expect(killed >= 5, "only \(killed) runs were killed mid-way")
    #expect(try store.outboxCounts() == OutboxCounts(pending: 0, delivered: keys.count, dead: 0))

    let lines = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines.last == "", "the file ends with a newline")
    var seen: [String] = []
    for line in lines.dropLast() {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "line does not parse: \(line)")
        let key = try #require(object["key"] as? String)
        if !seen.contains(key) { seen.append(key) }
    }
    #expect(seen == keys, "every key, first occurrences in creation order")
    print("JSONL kill test: \(keys.count) entries, \(killed) kills, \(lines.count - 1 - keys.count) duplicate lines")
}

/// `--follow` keeps running and delivers entries written after it started.
@Test(.timeLimit(.minutes(2))) func followDeliversEntriesWrittenWhileRunning() async throws {
    let folder = try TemporaryFolder()
    let path = folder.path("f.db")
    let output = folder.path("out.jsonl")
    let store = try Store(path: path)
    try enqueue(store, device: "F", date: "2024-03-01", value: 1)
    let process = Process()
    process.executableURL = try braceletExecutable()
    process.arguments = ["sync", "--db", path, "--jsonl", output, "--follow", "--poll", "0.05", "--quiet"]
    try process.run()
    defer {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
    func deliveredCount() throws -> Int { try store.outboxCounts().delivered }
    for _ in 0..<200 where try deliveredCount() < 1 { try await Task.sleep(nanoseconds: 20_000_000) }
    #expect(try deliveredCount() == 1)
    try enqueue(store, device: "F", date: "2024-03-01", value: 2)
    try enqueue(store, device: "G", date: "2024-03-02", value: 1)
    for _ in 0..<200 where try deliveredCount() < 3 { try await Task.sleep(nanoseconds: 20_000_000) }
    #expect(try deliveredCount() == 3)
    #expect(process.isRunning, "--follow keeps running")
    #expect(try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n").count == 3)
}
