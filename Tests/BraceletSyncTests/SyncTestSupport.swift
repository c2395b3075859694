import BraceletStore
import Foundation
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
