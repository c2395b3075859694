import Dispatch
import Synchronization

/// The session's writer: runs the sink's blocking work (a store's transaction and its fsync) on a
/// thread of its own while the session's thread keeps serving the link, so notifications (live
/// Heart Rate, late packets) are read as they arrive during a commit instead of piling up unread.
///
/// Back-pressure: it holds one item at a time (``start(_:)`` requires the previous one to have
/// finished). The session waits for a file's commit before it erases the file and asks for the
/// next, so at most one received file is in memory beside the one being read.
final class SessionWriter: Sendable {
    private let queue = DispatchQueue(label: "bracelet.session.writer")
    private let busy = Atomic<Bool>(false)

    /// Starts `work` on the writer's thread; watch the returned item for its outcome.
    func start(_ work: @escaping @Sendable () throws -> Void) -> WriterItem {
        let wasBusy = busy.exchange(true, ordering: .acquiringAndReleasing)
        precondition(!wasBusy, "the session starts one writer item at a time")
        let item = WriterItem()
        queue.async {
            let outcome = Result { try work() }
            self.busy.store(false, ordering: .releasing)
            item.finish(outcome)
        }
        return item
    }
}

/// One piece of work handed to a ``SessionWriter``: its outcome once it finished.
final class WriterItem: Sendable {
    private let outcome = Mutex<Result<Void, any Error>?>(nil)
    private let finished = DispatchSemaphore(value: 0)

    /// The outcome, `nil` while the work runs.
    var result: Result<Void, any Error>? { outcome.withLock { $0 } }

    /// Blocks until the work finished and returns its outcome.
    func wait() -> Result<Void, any Error> {
        if let result { return result }
        finished.wait()
        finished.signal()  // a later wait returns at once too
        guard let result else { preconditionFailure("a writer item signals only after its outcome is set") }
        return result
    }

    fileprivate func finish(_ result: Result<Void, any Error>) {
        outcome.withLock { $0 = result }
        finished.signal()
    }
}
