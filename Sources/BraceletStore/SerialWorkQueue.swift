import Dispatch

/// A serial dispatch queue for blocking work (SQLite with full fsync, file appends with fsync).
///
/// The package's one way to run blocking I/O from async code: the caller suspends while the work runs
/// on this queue's thread, so no thread of Swift's cooperative pool ever waits on a disk or a lock
/// (see ARCHITECTURE.md). Work runs in submission order, one item at a time.
package struct SerialWorkQueue: Sendable {
    private let queue: DispatchQueue

    /// A queue named `label` (the name shows in debuggers and crash reports).
    package init(label: String) {
        queue = DispatchQueue(label: label)
    }

    /// Runs `work` on the queue and suspends until it returns or throws.
    package func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try work() }) }
        }
    }

    /// Runs `work` on the queue and blocks the calling thread until it returns or throws: for the
    /// main thread of a synchronous command (a live session that must not erase before a commit is
    /// durable). Never call it from a task of Swift's cooperative pool, nor from work on this queue.
    package func sync<T>(_ work: () throws -> T) rethrows -> T {
        try queue.sync(execute: work)
    }

    /// Queues `work` and returns at once: for a thread that must not wait for the disk (a link's
    /// reader), whose work is done in order behind it. ``sync(_:)`` afterwards waits for all of it.
    package func submit(_ work: @escaping @Sendable () -> Void) {
        queue.async(execute: work)
    }

    /// Runs `work`, which cannot fail, on the queue and suspends until it returns.
    package func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: work()) }
        }
    }
}
