import BraceletStore
import Foundation
import Testing
@testable import BraceletSync

/// Whether `python3` has the Standard Webhooks verifier (`tools/install-system-packages.sh` installs it).
let standardWebhooksInstalled: Bool = {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", "import standardwebhooks"]
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return false }
    process.waitUntilExit()
    return process.terminationStatus == 0
}()

/// `tools/webhook-receiver.py` running on a port of its own, verifying with the `standardwebhooks`
/// package; its output lines are collected.
final class PythonReceiver: @unchecked Sendable {
    let process = Process()
    private let lines = Lines()
    private(set) var url = ""

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("tools/webhook-receiver.py").path

    /// Starts the receiver with `secret` (given in its environment) and `arguments`; waits until it listens.
    init(secret: String, arguments: [String] = [], environment: [String: String] = [:]) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", PythonReceiver.script, "--port", "0"] + arguments
        process.environment = childEnvironment(["BRACELET_WEBHOOK_SECRET": secret].merging(environment) { $1 })
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        try process.run()
        let handle = out.fileHandleForReading
        // The reader holds the lines, not the receiver: the receiver's end ends the process, which ends the reader.
        Thread.detachNewThread { [lines] in
            var pending = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { return }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: 0x0A) {
                    lines.append(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
                    pending.removeSubrange(pending.startIndex...newline)
                }
            }
        }
        guard waitUntil(seconds: 30, { output.contains { $0.hasPrefix("listening on ") } }),
              let line = output.first(where: { $0.hasPrefix("listening on ") }),
              let address = line.split(separator: " ").dropFirst(2).first else {
            kill(process.processIdentifier, SIGKILL)
            throw StoreError.invalidInput("the receiver did not start: \(output)")
        }
        url = address.hasSuffix("/") ? address + "in" : address + "/in"
    }

    deinit {
        // SIGKILL: a test peer need not stop cleanly, and a child of the test process may have SIGTERM blocked.
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Every line printed so far.
    var output: [String] { lines.all }

    /// The keys it accepted.
    var accepted: [String] { output.filter { $0.hasPrefix("accepted ") }.map { String($0.split(separator: " ")[1]) } }
}

/// Lines collected from a child's output.
private final class Lines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    var all: [String] { lock.withLock { lines } }
    func append(_ line: String) { lock.withLock { lines.append(line) } }
}

/// The signature checked at the far end by the specification's own verifier, the way any receiver
/// would: with a `whsec_` secret (its base64 key) and with a plain one (its bytes), gzip and plain
/// bodies alike. A wrong secret is refused (the sink pauses), and a second delivery of a key is
/// answered 409.
@Test(.enabled(if: standardWebhooksInstalled, "python3 lacks the standardwebhooks package: run tools/install-system-packages.sh"),
      arguments: ["whsec_" + Data((0..<32).map { UInt8(($0 * 37 + 11) % 256) }).base64EncodedString(), "a plain s3cret"])
func theStandardWebhooksVerifierAcceptsTheSignature(secret: String) async throws {
    let folder = try TemporaryFolder()
    let store = try Store(path: folder.path("a.db"))
    try enqueue(store, device: "SN1", date: "2024-03-01", value: 1)
    try enqueue(store, device: "SN2", date: "2024-03-01", value: 2)
    let entries = try store.outboxEntries()
    let receiver = try PythonReceiver(secret: secret)
    let gzip = try WebhookSink(url: receiver.url, secret: secret, timeoutSeconds: 20)
    let identity = try WebhookSink(url: receiver.url, secret: secret, timeoutSeconds: 20, encoding: .identity)
    #expect(try await gzip.deliver(entries[0]) == .delivered(httpStatus: 200))
    #expect(try await identity.deliver(entries[1]) == .delivered(httpStatus: 200))
    #expect(receiver.accepted == entries.map(\.key), "receiver said: \(receiver.output)")
    #expect(try await gzip.deliver(entries[0]) == .alreadyHad(httpStatus: 409))

    let other = secret.hasPrefix("whsec_") ? "whsec_" + Data(repeating: 7, count: 32).base64EncodedString() : secret + "x"
    let wrong = try WebhookSink(url: receiver.url, secret: other, timeoutSeconds: 20)
    let refused = try await wrong.deliver(entries[1])
    #expect(refused.label == "configuration_failure" && refused.httpStatus == 401, "got \(refused)")
    #expect(receiver.output.contains { $0.contains("refused: No matching signature found") })
}
