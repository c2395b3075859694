import BraceletDecoder
import BraceletStore
import Foundation
import Testing
@testable import BraceletSync

/// A webhook receiver that keeps the keys it accepted: a new key is accepted (200) and counted, a
/// known key is answered 409 and not counted again. It also checks every signature.
///
/// It can be armed to hold one request, so that a test can kill the sender at a point defined by
/// progress (after N keys were accepted) instead of after a wall-clock delay, and the sender is
/// certainly still running then: it waits for that answer.
final class KeyKeepingReceiver: @unchecked Sendable {
    /// What happens to the held request.
    enum Hold: Sendable, Equatable, CustomStringConvertible {
        /// Held before it is looked at: the receiver never saw its key.
        case beforeAccepting
        /// Looked at (a new key is accepted, a known one counted as duplicate), then the answer is
        /// held: the sender never learns that the receiver has it.
        case afterAccepting

        var description: String { self == .beforeAccepting ? "before accepting" : "after accepting" }
    }

    private let condition = NSCondition()
    private var acceptedKeys: [String] = []
    private var duplicateCount = 0
    private var badSignatureCount = 0
    private var gate: (acceptedAtLeast: Int, hold: Hold)?
    /// Bumped by every arm and release, so a request held under an earlier gate never counts as
    /// held now (its thread may not have woken up yet).
    private var generation = 0
    private var heldInGeneration: Int?
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

    /// The first request that arrives once at least `count` keys are accepted is held (see ``Hold``)
    /// until ``release()``.
    func arm(holdWhenAccepted count: Int, _ hold: Hold) {
        condition.withLock {
            generation += 1
            gate = (count, hold)
        }
    }

    /// Whether a request is being held now.
    var isHolding: Bool { condition.withLock { heldInGeneration == generation } }

    /// Disarms the gate and lets a held request go (its answer goes to a closed connection when the
    /// sender was killed).
    func release() {
        condition.withLock {
            gate = nil
            generation += 1
            condition.broadcast()
        }
    }

    func receive(_ request: TestHTTPServer.Request, secret: String) -> TestHTTPServer.Action {
        let expected = "sha256=" + HMACSHA256.hex(key: Array(secret.utf8), message: Array(request.body))
        condition.lock()
        defer { condition.unlock() }
        guard request.headers["x-bracelet-signature"] == expected, let key = request.headers["idempotency-key"] else {
            badSignatureCount += 1
            return .respond(status: 401, body: "bad signature")
        }
        let held = gate.flatMap { acceptedKeys.count >= $0.acceptedAtLeast ? $0.hold : nil }
        if held == .beforeAccepting {
            waitForRelease()
            return .respond(status: 503, body: "released without looking at \(key)")
        }
        let answer: TestHTTPServer.Action
        if acceptedKeys.contains(key) {
            duplicateCount += 1
            answer = .respond(status: 409, body: "already have \(key)")
        } else {
            acceptedKeys.append(key)
            answer = .respond(status: 200, body: "")
        }
        if held == .afterAccepting { waitForRelease() }
        return answer
    }

    /// Called with the lock held.
    private func waitForRelease() {
        let mine = generation
        heldInGeneration = mine
        while generation == mine { condition.wait() }
    }

    var accepted: [String] { condition.withLock { acceptedKeys } }
    var duplicates: Int { condition.withLock { duplicateCount } }
    var badSignatures: Int { condition.withLock { badSignatureCount } }
}

/// The `bracelet` executable that the build put next to the test bundle (`swift build` links it, and
/// so does the build step of `swift test`), refusing a missing one, or one older than the object
/// files it is linked from (say `swift test --skip-build` after editing), with a message that says
/// what to run. The tests spawn it as a real process so that it can be SIGKILLed.
func braceletExecutable() throws -> URL {
    let candidates = [
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("bracelet"),
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".build/debug/bracelet"),
    ]
    guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
        throw StoreError.invalidInput("the sync tests run the real `bracelet` executable, and there is none at \(candidates.map(\.path)): "
            + "run `swift build` (or `swift build --product bracelet`), then `swift test` without --skip-build.")
    }
    // Refuse a binary older than any object file it is linked from: it would test old code.
    // (A module missing on this branch, like main's CDecodeKernels here, has no folder and is skipped.)
    let built = try modificationDate(found)
    let modules = ["BraceletProtocol", "BraceletDecoder", "BraceletTransport", "BraceletCapture", "BraceletSimulator",
                   "BraceletSummaries", "BraceletStore", "BraceletSync", "BraceletVitality", "BraceletCLI", "CDecodeKernels"]
    for module in modules {
        let objects = found.deletingLastPathComponent().appendingPathComponent("\(module).build")
        for case let file as URL in FileManager.default.enumerator(at: objects, includingPropertiesForKeys: nil) ?? .init()
        where file.pathExtension == "o" {
            if try modificationDate(file) > built {
                throw StoreError.invalidInput("\(found.path) is older than \(module).build/\(file.lastPathComponent), so it would test old code: "
                    + "run `swift build` (or `swift build --product bracelet`), then `swift test` without --skip-build.")
            }
        }
    }
    return found
}

private func modificationDate(_ url: URL) throws -> Date {
    try FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date ?? .distantPast
}


/// Polls `condition` every 2 ms without holding a thread; `false` when it is still false after
/// `seconds` (generous: only a hung child or a broken receiver takes that long).
func eventually(seconds: Double = 120, _ condition: () throws -> Bool) async throws -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while try !condition() {
        if Date() > deadline { return false }
        try await Task.sleep(nanoseconds: 2_000_000)
    }
    return true
}

/// How a kill-test round picks its moment.
enum KillMoment: CaseIterable, CustomStringConvertible {
    /// While the receiver holds a request it has not looked at.
    case whileRequestUnseen
    /// While the receiver holds the answer to a request it has accepted: the next run must send that
    /// key again and get 409.
    case whileAnswerHeld
    /// As soon as the test sees that the receiver has accepted N keys, wherever the child is then
    /// (reading the answer, committing it to SQLite, starting the next request). A gate 20 keys
    /// later keeps the child from finishing first when the test is scheduled late.
    case freeRunning

    var description: String {
        switch self {
        case .whileRequestUnseen: "while a request is unseen"
        case .whileAnswerHeld: "while an accepted answer is held"
        case .freeRunning: "free-running"
        }
    }
}

/// THE KILL TEST: `bracelet sync` is killed with SIGKILL 21 times at points defined by progress
/// (after the receiver accepted N more keys; 7 times each ``KillMoment``), then run to the end.
/// Every entry must be delivered, the key-keeping receiver must have counted each key exactly once,
/// in order per device, and it must have seen exactly one re-sent key per answer it withheld.
@Test(.timeLimit(.minutes(5))) func killingSyncAtRandomMomentsLosesNothingAndCountsEachKeyOnce() async throws {
    let executable = try braceletExecutable()
    let folder = try TemporaryFolder()
    let path = folder.path("kill.db")
    let store = try Store(path: path)
    var keys: [String] = []
    for day in 1...140 {
        for device in ["K1", "K2", "K3"] {
            keys.append(try enqueue(store, device: device, date: String(format: "2024-01-%02d", (day - 1) % 28 + 1),
                                    value: day, kind: ["daily", "late", "later", "latest", "last"][(day - 1) / 28]))
        }
        if day % 4 == 0 {
            // A recompute of an earlier day: a second version queued behind the first.
            keys.append(try enqueue(store, device: "K1", date: String(format: "2024-01-%02d", (day - 2) % 28 + 1), value: 1_000 + day))
        }
    }
    #expect(keys.count == 140 * 3 + 35)
    #expect(Set(keys).count == keys.count)
    let secret = "kill-test-secret"
    let receiver = try KeyKeepingReceiver(secret: secret, delaySeconds: 0.001)
    defer {
        receiver.release()
        receiver.server.stop()
    }
    // A long request timeout: a held request must end by the kill, never by the child giving up
    // (that would be a retry we did not plan, and the duplicate count below would be off).
    let arguments = ["sync", "--db", path, "--webhook", receiver.server.url, "--secret", secret, "--once", "--quiet",
                     "--base-delay", "0.05", "--max-delay", "0.2", "--timeout", "600"]
    let seed = UInt64.random(in: 0...UInt64.max)
    var random = SeededGenerator(seed: seed)

    var kills: [KillMoment: Int] = [:]
    var acceptedAtEachKill: [Int] = []
    for round in 0..<21 {
        let moment = KillMoment.allCases[round % 3]
        // At most 8 + 20 keys per round: 21 rounds stay well below the 455 entries, so no round can
        // run out of work before its kill.
        let target = receiver.accepted.count + Int.random(in: 1...8, using: &random)
        switch moment {
        case .whileRequestUnseen: receiver.arm(holdWhenAccepted: target, .beforeAccepting)
        case .whileAnswerHeld: receiver.arm(holdWhenAccepted: target, .afterAccepting)
        case .freeRunning: receiver.arm(holdWhenAccepted: target + 20, .beforeAccepting)
        }
        let child = try SpawnedBracelet(executable, arguments: arguments, stderr: .file(folder.path("stderr-\(round).txt")))
        let reached = try await eventually {
            !child.isRunning || (moment == .freeRunning ? receiver.accepted.count >= target : receiver.isHolding)
        }
        child.kill()
        #expect(try await child.waitForExit(), "round \(round): the child does not end after SIGKILL")
        receiver.release()
        try #require(reached, "round \(round) (\(moment)): no progress to \(target) accepted keys within 120 s; child \(child.ending)")
        try #require(child.endedBySIGKILL, "round \(round) (\(moment)): the child ended before the kill: \(child.ending)")
        kills[moment, default: 0] += 1
        acceptedAtEachKill.append(receiver.accepted.count)
    }
    let last = try SpawnedBracelet(executable, arguments: arguments, stderr: .file(folder.path("stderr-last.txt")))
    #expect(try await last.waitForExit())
    #expect(last.process.terminationReason == .exit && last.process.terminationStatus == 0, "last run: \(last.ending)")
    #expect(last.errorText.isEmpty, "--quiet prints nothing but errors")

    #expect(kills == [.whileRequestUnseen: 7, .whileAnswerHeld: 7, .freeRunning: 7])
    #expect(try store.outboxCounts() == OutboxCounts(pending: 0, delivered: keys.count, dead: 0))
    let accepted = receiver.accepted
    #expect(accepted.count == keys.count, "each key counted exactly once")
    #expect(Set(accepted) == Set(keys))
    #expect(receiver.badSignatures == 0)
    for device in ["K1", "K2", "K3"] {
        #expect(accepted.filter { $0.hasPrefix(device + "/") } == keys.filter { $0.hasPrefix(device + "/") }, "order of \(device)")
    }
    // Every withheld answer makes the next runs send that key once more (answered 409). A
    // free-running kill may land between the receiver's answer and the child's commit: at most one
    // more each. Nothing else is ever sent twice.
    let withheld = kills[.whileAnswerHeld] ?? 0
    #expect(receiver.duplicates >= withheld && receiver.duplicates <= withheld + (kills[.freeRunning] ?? 0),
            "409s: \(receiver.duplicates), withheld answers: \(withheld), free-running kills: \(kills[.freeRunning] ?? 0) (seed \(seed))")
    print("kill test (seed \(seed)): \(keys.count) entries, 21 kills at accepted counts \(acceptedAtEachKill), "
        + "\(receiver.duplicates) re-deliveries answered 409")
}

/// The same with the JSON Lines sink: killed 10 times once the file has grown by a random 1...40
/// lines, then run to the end. Every line parses, every key is there, and the only duplicates are
/// whole lines repeating a key (which readers dedupe).
///
/// The child's progress goes to a one-page stderr pipe that is not read until it ends: after about
/// 80 entries it blocks writing, so it cannot finish its work before the kill, however late the test
/// is scheduled.
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
    func lineCount() -> Int {
        (FileManager.default.contents(atPath: output) ?? Data()).reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
    }
    let seed = UInt64.random(in: 0...UInt64.max)
    var random = SeededGenerator(seed: seed)
    var linesAtEachKill: [Int] = []
    for round in 0..<10 {
        let target = lineCount() + Int.random(in: 1...40, using: &random)
        let child = try SpawnedBracelet(executable, arguments: ["sync", "--db", path, "--jsonl", output, "--once"], stderr: .smallUnreadPipe)
        let reached = try await eventually { !child.isRunning || lineCount() >= target }
        child.kill()
        #expect(try await child.waitForExit(), "round \(round): the child does not end after SIGKILL")
        try #require(reached, "round \(round): the file did not grow to \(target) lines within 120 s; child \(child.ending)")
        try #require(child.endedBySIGKILL, "round \(round): the child ended before the kill: \(child.ending)")
        linesAtEachKill.append(lineCount())
    }
    let last = try SpawnedBracelet(executable, arguments: ["sync", "--db", path, "--jsonl", output, "--once", "--quiet"],
                                   stderr: .file(folder.path("stderr-last.txt")))
    #expect(try await last.waitForExit())
    #expect(last.process.terminationReason == .exit && last.process.terminationStatus == 0, "last run: \(last.ending)")
    #expect(try store.outboxCounts() == OutboxCounts(pending: 0, delivered: keys.count, dead: 0))

    let lines = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines.last == "", "the file ends with a newline")
    var seen: [String] = []
    var seenSet: Set<String> = []
    for line in lines.dropLast() {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "line does not parse: \(line)")
        let key = try #require(object["key"] as? String)
        if seenSet.insert(key).inserted { seen.append(key) }
    }
    #expect(seen == keys, "every key, first occurrences in creation order")
    // A kill can repeat at most the one line it interrupted (appended, not yet recorded).
    #expect(lines.count - 1 - keys.count <= 10, "at most one duplicate line per kill")
    print("JSONL kill test (seed \(seed)): \(keys.count) entries, 10 kills at line counts \(linesAtEachKill), "
        + "\(lines.count - 1 - keys.count) duplicate lines")
}

/// `--follow` keeps running and delivers entries written after it started.
@Test(.timeLimit(.minutes(5))) func followDeliversEntriesWrittenWhileRunning() async throws {
    let folder = try TemporaryFolder()
    let path = folder.path("f.db")
    let output = folder.path("out.jsonl")
    let store = try Store(path: path)
    try enqueue(store, device: "F", date: "2024-03-01", value: 1)
    let child = try SpawnedBracelet(try braceletExecutable(), arguments: ["sync", "--db", path, "--jsonl", output, "--follow", "--poll", "0.05", "--quiet"],
                                    stderr: .file(folder.path("stderr.txt")))
    func deliveredCount() throws -> Int { try store.outboxCounts().delivered }
    let first = try await eventually { try deliveredCount() >= 1 || !child.isRunning }
    #expect(first && child.isRunning, "the first entry within 120 s; child \(child.ending)")
    #expect(try deliveredCount() == 1)
    try enqueue(store, device: "F", date: "2024-03-01", value: 2)
    try enqueue(store, device: "G", date: "2024-03-02", value: 1)
    let more = try await eventually { try deliveredCount() >= 3 || !child.isRunning }
    #expect(more, "the two new entries within 120 s")
    #expect(try deliveredCount() == 3)
    #expect(child.isRunning, "--follow keeps running; child \(child.ending)")
    child.kill()
    #expect(try await child.waitForExit())
    #expect(try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n").count == 3)
}
