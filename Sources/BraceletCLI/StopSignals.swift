import BraceletSync
import Foundation
import Synchronization

/// SIGTERM and SIGINT (and, for the gateway, SIGHUP) turned into requests a thread waits for, for
/// the commands that run until stopped: `gateway run` and `sync --follow`. The handlers only store
/// the signal and write(2) one byte to a pipe (what a signal handler may do); a thread sleeping in
/// poll(2) on the pipe's read end acts on it. Without handlers SIGTERM ended `sync --follow` on the
/// spot: the request under way unrecorded, the WAL left behind, no line in the log.
enum StopSignals {
    /// The last signal asking to stop (SIGTERM or SIGINT), 0 while none did.
    private static let stop = Atomic<Int32>(0)
    /// Set by SIGHUP when ``install(reload:)`` asked for it.
    private static let reload = Atomic<Bool>(false)
    /// The pipe's write end (-1 while no handlers are installed).
    private static let wake = Atomic<Int32>(-1)

    /// The pipe the handlers write to; closed by ``close()``.
    struct Pipe {
        /// What a waiting thread polls.
        let readEnd: Int32
        let writeEnd: Int32
    }

    /// Installs the handlers (SIGHUP's only with `reload`) and ignores SIGPIPE; returns the pipe a
    /// thread waits on.
    static func install(reload withReload: Bool) throws -> Pipe {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw CLIError("cannot create the signal pipe: \(String(cString: strerror(errno)))") }
        for fd in ends {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        wake.store(ends[1], ordering: .relaxed)
        signal(SIGTERM) { StopSignals.stop.store($0, ordering: .relaxed); StopSignals.wakeUp() }
        signal(SIGINT) { StopSignals.stop.store($0, ordering: .relaxed); StopSignals.wakeUp() }
        if withReload { signal(SIGHUP) { _ in StopSignals.reload.store(true, ordering: .relaxed); StopSignals.wakeUp() } }
        signal(SIGPIPE, SIG_IGN)
        return Pipe(readEnd: ends[0], writeEnd: ends[1])
    }

    /// Closes `pipe`; a late signal then writes to no descriptor rather than to one reused after
    /// the close.
    static func close(_ pipe: Pipe) {
        wake.store(-1, ordering: .relaxed)
        _ = Glibc.close(pipe.readEnd)
        _ = Glibc.close(pipe.writeEnd)
    }

    /// The signal that asked to stop, 0 while none did.
    static var received: Int32 { stop.load(ordering: .relaxed) }

    /// `SIGINT` or `SIGTERM`, for the closing line.
    static var receivedName: String { received == SIGINT ? "SIGINT" : "SIGTERM" }

    /// Whether SIGHUP came since the last call.
    static func takeReload() -> Bool { reload.exchange(false, ordering: .relaxed) }

    /// Wakes the waiting thread (only write(2): async-signal-safe; also used to end the wait when
    /// the work ended by itself).
    static func wakeUp() {
        var byte: UInt8 = 1
        _ = write(wake.load(ordering: .relaxed), &byte, 1)
    }

    /// Sleeps until a byte comes on `pipe` or `milliseconds` pass (-1: no limit), then empties it.
    static func wait(_ pipe: Pipe, milliseconds: Int32) {
        var descriptor = pollfd(fd: pipe.readEnd, events: Int16(POLLIN), revents: 0)
        _ = poll(&descriptor, 1, milliseconds)
        var drain = [UInt8](repeating: 0, count: 64)
        while read(pipe.readEnd, &drain, drain.count) > 0 {}
    }

    /// Whether `task` ended within `seconds` (it is left running otherwise). The deadline runs on a
    /// Dispatch queue: a stopping process must not depend on a free thread of the cooperative pool.
    static func finished(_ task: Task<Void, any Error>, withinSeconds seconds: Double) async -> Bool {
        let answer = FirstResult<Bool>()
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            answer.wait(with: continuation)
            Task.detached {
                _ = await task.result
                answer.give(true)
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { answer.give(false) }
        }
    }

    /// Runs `work` (a `--follow` loop) until it ends or SIGTERM/SIGINT comes: then it is cancelled
    /// (a request or statement under way stops at once) and given `graceSeconds` to return; a sink
    /// that still does not is left behind (nothing uncommitted is lost by leaving: the entry stays
    /// pending), and `abandoned` says so. Returns whether a signal ended it; rethrows what ended it
    /// otherwise.
    static func runUntilStopped(graceSeconds: Double = 3, abandoned: @escaping @Sendable () -> Void,
                                _ work: @escaping @Sendable () async throws -> Void) async throws -> Bool {
        let pipe = try install(reload: false)
        let task = Task { try await work() }
        let result = FirstResult<Result<Bool, any Error>>()
        let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Bool, any Error>, Never>) in
            result.wait(with: continuation)
            Task.detached {
                switch await task.result {
                case .success: result.give(.success(received != 0))
                case .failure(let error): result.give(error is CancellationError && received != 0 ? .success(true) : .failure(error))
                }
                wakeUp()
            }
            // The thread that polls the pipe closes it, once it polls no more.
            Thread {
                while received == 0 && !result.isGiven { wait(pipe, milliseconds: -1) }
                close(pipe)
                guard received != 0 else { return }
                task.cancel()
                DispatchQueue.global().asyncAfter(deadline: .now() + graceSeconds) {
                    if result.give(.success(true)) { abandoned() }
                }
            }.start()
        }
        return try outcome.get()
    }
}
