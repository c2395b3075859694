import BraceletStore
import Foundation
#if canImport(Glibc)
import Glibc
#endif
@testable import BraceletSync

/// A fresh temporary folder per test, removed when released.
final class TemporaryFolder {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("bracelet-sync-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    deinit { try? FileManager.default.removeItem(at: url) }
}

/// A clock whose sleeps return at once and move time forward; it remembers every sleep.
final class ManualClock: ForwarderClock, @unchecked Sendable {
    private let lock = NSLock()
    private var current: Int64
    private var recorded: [Int64] = []

    init(start: Int64) { current = start }

    var sleeps: [Int64] { lock.withLock { recorded } }

    func nowMilliseconds() -> Int64 { lock.withLock { current } }

    func advance(_ milliseconds: Int64) { lock.withLock { current += milliseconds } }

    func sleep(milliseconds: Int64) async throws {
        lock.withLock {
            recorded.append(milliseconds)
            current += milliseconds
        }
    }
}

/// A sink that answers from a script per key (then `delivered`) and records every attempt.
final class ScriptedSink: OutboxSink, @unchecked Sendable {
    private let lock = NSLock()
    private var script: [String: [DeliveryOutcome]]
    private var log: [(key: String, at: Int64)] = []
    private let clock: ManualClock?

    init(script: [String: [DeliveryOutcome]] = [:], clock: ManualClock? = nil) {
        self.script = script
        self.clock = clock
    }

    var name: String { "scripted" }

    /// Keys in the order they were attempted.
    var attempts: [String] { lock.withLock { log.map(\.key) } }

    /// Times of the attempts of `key`.
    func times(of key: String) -> [Int64] { lock.withLock { log.filter { $0.key == key }.map(\.at) } }

    func deliver(_ entry: OutboxEntry) async throws -> DeliveryOutcome {
        lock.withLock {
            log.append((entry.key, clock?.nowMilliseconds() ?? 0))
            if var queue = script[entry.key], !queue.isEmpty {
                let next = queue.removeFirst()
                script[entry.key] = queue
                return next
            }
            return .delivered(httpStatus: nil)
        }
    }
}

/// Writes version `version` of a daily summary so that an outbox entry exists.
@discardableResult
func enqueue(_ store: Store, device: String, date: String, value: Int, kind: String = "daily") throws -> String {
    let change = try store.upsertDailySummary(device: device, localDate: date, kind: kind, json: Data(#"{"value":\#(value)}"#.utf8))
    guard case let .changed(_, key) = change else { throw StoreError.invalidInput("expected a change") }
    return key
}

/// Runs `bracelet` with `arguments` (and `environment` added to this process's, without
/// `$BRACELET_WEBHOOK_SECRET` unless given there); returns exit status, stdout and stderr. A run
/// longer than `deadlineSeconds` is killed (status 137), so a hang fails the test instead of holding it.
func runBracelet(_ arguments: [String], environment: [String: String] = [:], deadlineSeconds: Double = 600) throws
    -> (status: Int32, out: String, err: String) {
    let process = Process()
    process.executableURL = try braceletExecutable()
    process.arguments = arguments
    process.environment = childEnvironment(environment)
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let pid = process.processIdentifier
    let watchdog = DispatchWorkItem { kill(pid, SIGKILL) }
    DispatchQueue.global().asyncAfter(deadline: .now() + deadlineSeconds, execute: watchdog)
    let errData = ReadAll(err.fileHandleForReading)
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    watchdog.cancel()
    return (process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData.wait(), as: UTF8.self))
}

/// This process's environment without `$BRACELET_WEBHOOK_SECRET`, `$BRACELET_POSTGRES_URL` and
/// `$CREDENTIALS_DIRECTORY`, plus `extra`.
func childEnvironment(_ extra: [String: String]) -> [String: String] {
    var environment = ProcessInfo.processInfo.environment
    for name in ["BRACELET_WEBHOOK_SECRET", "BRACELET_POSTGRES_URL", "CREDENTIALS_DIRECTORY"] { environment[name] = nil }
    environment.merge(extra) { $1 }
    return environment
}

/// Reads a pipe to its end on its own thread (so that two pipes of one child never block each other).
final class ReadAll: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var data = Data()

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }
    }

    /// The bytes, once the writer closed the pipe.
    func wait() -> Data {
        done.wait()
        return data
    }
}

/// A `bracelet` started in the background, its standard error going to a file.
struct RunningBracelet {
    let process: Process
    let errorPath: String

    /// What it wrote to standard error so far.
    var err: String { (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "" }
}

/// Starts `bracelet` with `arguments` in the background (environment as ``runBracelet(_:environment:deadlineSeconds:)``).
func startBracelet(_ arguments: [String], environment: [String: String] = [:]) throws -> RunningBracelet {
    let process = Process()
    process.executableURL = try braceletExecutable()
    process.arguments = arguments
    process.environment = childEnvironment(environment)
    let errorPath = FileManager.default.temporaryDirectory.appendingPathComponent("bracelet-err-\(UUID().uuidString)").path
    _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
    process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    return RunningBracelet(process: process, errorPath: errorPath)
}

/// Sends SIGTERM and returns how many seconds the process took to exit; kills it after
/// `deadlineSeconds` (then the returned time is the deadline). Removes its standard error file.
@discardableResult
func stop(_ running: RunningBracelet, deadlineSeconds: Double) throws -> Double {
    defer { try? FileManager.default.removeItem(atPath: running.errorPath) }
    let start = ContinuousClock.now
    kill(running.process.processIdentifier, SIGTERM)
    let ended = waitUntil(seconds: deadlineSeconds) { !running.process.isRunning }
    if !ended {
        kill(running.process.processIdentifier, SIGKILL)
        running.process.waitUntilExit()
        return deadlineSeconds
    }
    let elapsed = start.duration(to: .now)
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

/// Polls `condition` every 50 ms for up to `seconds`; whether it became true.
func waitUntil(seconds: Double, _ condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1_000))
    while ContinuousClock.now < deadline {
        if condition() { return true }
        Thread.sleep(forTimeInterval: 0.05)
    }
    return condition()
}

/// A TCP port on 127.0.0.1 that nobody listens on now (bound once by the kernel's choice, then
/// released): connecting to it is refused until a server binds it.
func unusedLocalPort() throws -> UInt16 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw POSIXError(.EIO) }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let ok = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
    }
    guard ok else { throw POSIXError(.EADDRINUSE) }
    return UInt16(bigEndian: address.sin_port)
}

/// Writes a sleep session so that an outbox entry of kind `sleep_session` exists.
@discardableResult
func enqueueSleep(_ store: Store, device: String, date: String, start: Int64) throws -> String {
    let change = try store.upsertSleepSession(device: device, start: start, stop: start + 28_800, localDate: date,
                                              json: Data(#"{"minutes":480}"#.utf8))
    guard case let .changed(_, key) = change else { throw StoreError.invalidInput("expected a change") }
    return key
}

extension TestHTTPServer.Request {
    /// The body as a receiver reads it once the signature checked out: gunzipped when it came with
    /// `Content-Encoding: gzip`.
    var decodedBody: Data {
        get throws {
            guard headers["content-encoding"] == "gzip" else { return body }
            return Data(try Deflate.decompress([UInt8](body)))
        }
    }
}

/// Writes `bytes` over the file at `path` and gives it back its modification time: a change on
/// disk that no program made (a program that writes changes the time, and bracelet then names the
/// change a write from outside, not damage).
func writeAsDiskDamage(_ bytes: Data, to path: String) throws {
    var status = stat()
    guard stat(path, &status) == 0 else { throw CocoaError(.fileNoSuchFile) }
    try bytes.write(to: URL(fileURLWithPath: path))
    var times = [status.st_atim, status.st_mtim]
    guard utimensat(AT_FDCWD, path, &times, 0) == 0 else { throw CocoaError(.fileWriteUnknown) }
}
