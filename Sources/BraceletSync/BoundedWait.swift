import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Resumes a waiting continuation exactly once, with the first value given: whichever comes first
/// of a worker's result, a deadline or the caller's cancellation. Later values are dropped. Shared
/// by the clients that block a thread of their own on the network (the webhook's HTTP exchange, the
/// fleet sink's statements) and by the gateway's stop.
package final class FirstResult<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Value, Never>?
    private var early: Value?
    private var done = false

    /// A result nobody gave yet.
    package init() {}

    /// Waits with `waiting` (resumed at once when a value came first).
    package func wait(with waiting: CheckedContinuation<Value, Never>) {
        let value = lock.withLock { () -> Value? in
            if early == nil { continuation = waiting }
            return early
        }
        if let value { waiting.resume(returning: value) }
    }

    /// Whether a value was given.
    package var isGiven: Bool { lock.withLock { done } }

    /// Resumes the waiting continuation with `value` unless another value came first; returns
    /// whether this one was taken.
    @discardableResult
    package func give(_ value: Value) -> Bool {
        let (taken, waiting) = lock.withLock { () -> (Bool, CheckedContinuation<Value, Never>?) in
            guard !done else { return (false, nil) }
            done = true
            if continuation == nil { early = value }
            defer { continuation = nil }
            return (true, continuation)
        }
        waiting?.resume(returning: value)
        return taken
    }
}

/// Ends a blocked network wait from another thread (its deadline passed on the caller's side, or
/// the caller was cancelled): the wait polls this pipe beside its socket. One per call: a fired
/// interrupt stays fired. The thread that waits on it calls ``close()`` when its work ends, so its
/// two descriptors go at once: a deadline timer may keep the object until the deadline, and kept
/// descriptors were two per request for as long as the timeout (a gateway delivering a backlog ran
/// out of them).
package final class WaitInterrupt: @unchecked Sendable {
    private var descriptors: [Int32]
    private let lock = NSLock()
    private var fired = false

    /// A new, unfired interrupt. When no pipe can be made (no descriptors left), waits are ended by
    /// their deadlines only.
    package init() {
        var pair: [Int32] = [-1, -1]
        if pipe(&pair) == 0 {
            for fd in pair {
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            }
        } else {
            pair = [-1, -1]
        }
        descriptors = pair
    }

    deinit { close() }

    /// Closes the pipe; later waits are ended by their deadlines and ``isFired`` only. Called by the
    /// thread that polls ``wakeDescriptor`` once it polls no more.
    package func close() {
        let open = lock.withLock { () -> [Int32] in
            defer { descriptors = [-1, -1] }
            return descriptors
        }
        open.filter { $0 >= 0 }.forEach { _ = Glibc.close($0) }
    }

    /// What a wait polls beside its socket (-1, which `poll` skips, when there is no pipe).
    package var wakeDescriptor: Int32 { lock.withLock { descriptors[0] } }

    /// Whether it fired.
    package var isFired: Bool { lock.withLock { fired } }

    /// Ends the current and every later wait.
    package func fire() {
        // Under the lock: a descriptor closed meanwhile could be another file's by now.
        lock.withLock {
            fired = true
            var byte: UInt8 = 1
            if descriptors[1] >= 0 { _ = Glibc.write(descriptors[1], &byte, 1) }
        }
    }
}

extension Duration {
    /// This duration in whole milliseconds for `poll(2)`: rounded up (a wait never ends before its
    /// deadline), at least 1, at most `Int32.max`.
    package var pollMilliseconds: Int32 {
        let (seconds, attoseconds) = components
        let milliseconds = seconds.multipliedReportingOverflow(by: 1_000)
        guard !milliseconds.overflow else { return seconds < 0 ? 1 : Int32.max }
        return Int32(clamping: max(1, milliseconds.partialValue + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000))
    }
}
