import Dispatch

/// A value computed on another thread while the caller goes on with something else: the one way
/// to overlap a piece of work with the store's own thread (an ingest stores a piece while it reads
/// the next; a recompute summarises a run of days while it reads and saves others).
///
/// ``value()`` waits for it and returns it, or throws what computing it threw.
package final class Background<Value>: @unchecked Sendable {
    // Unchecked: `result` is written once, on the worker thread, before `done` is signalled, and
    // read only after a wait on `done`.
    private let done = DispatchSemaphore(value: 0)
    private var result: Result<Value, any Error>?

    /// Starts `work` on a thread of the global pool.
    package init(_ work: @escaping @Sendable () throws -> Value) {
        DispatchQueue.global().async { [self] in
            result = Result { try work() }
            done.signal()
        }
    }

    /// The value, once computed.
    package func value() throws -> Value {
        done.wait()
        defer { done.signal() }  // later calls return at once
        guard let result else { preconditionFailure("Background finished without a result") }
        return try result.get()
    }
}
