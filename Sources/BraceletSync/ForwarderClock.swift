import Foundation

/// The forwarder's notion of time: injectable so tests run backoff schedules without waiting.
public protocol ForwarderClock: Sendable {
    /// Now, Unix milliseconds.
    func nowMilliseconds() -> Int64
    /// Waits `milliseconds` (throws when the task is cancelled).
    func sleep(milliseconds: Int64) async throws
}

/// The wall clock and real sleeping.
public struct SystemClock: ForwarderClock {
    /// Creates the wall clock.
    public init() {}

    /// Now, Unix milliseconds.
    public func nowMilliseconds() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
    }

    /// Sleeps for real, at most one day per call (a longer wait is the caller's loop, and keeps the
    /// conversion to nanoseconds far from overflow).
    public func sleep(milliseconds: Int64) async throws {
        guard milliseconds > 0 else { return }
        try await Task.sleep(nanoseconds: UInt64(min(milliseconds, 86_400_000)) * 1_000_000)
    }
}
