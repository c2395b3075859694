import BraceletStore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A `bracelet` child process for the kill tests.
///
/// Waiting never blocks a thread: Swift Testing runs tests in parallel on the cooperative pool,
/// which has one thread per core (2 on CI), and `waitUntilExit()` in one test would hold a thread
/// that other tests' sleeps and deadlines need. Its stderr is kept so that a run that ends on its
/// own (say a database error) is reported with its message instead of as "not killed".
final class SpawnedBracelet {
    /// Where the child's stderr goes.
    enum ErrorOutput {
        /// A file in the test's temporary folder (read after the child ended).
        case file(String)
        /// A pipe of one page (4096 bytes on Linux) that nobody reads while the child runs: once
        /// the child has written a page of progress lines it blocks, so it cannot finish its work
        /// before the test kills it, however slow the test is scheduled.
        case smallUnreadPipe
    }

    let process = Process()
    private let errorOutput: ErrorOutput
    private var pipe: Pipe?

    /// Starts `executable` with `arguments`.
    init(_ executable: URL, arguments: [String], stderr errorOutput: ErrorOutput) throws {
        self.errorOutput = errorOutput
        process.executableURL = executable
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        switch errorOutput {
        case let .file(path):
            guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
                throw StoreError.invalidInput("cannot create \(path) for the child's stderr")
            }
            process.standardError = handle
        case .smallUnreadPipe:
            let pipe = Pipe()
            #if os(Linux)
            // F_SETPIPE_SZ (1031): the kernel rounds up to one page.
            guard fcntl(pipe.fileHandleForWriting.fileDescriptor, 1031, 4096) >= 0 else {
                throw StoreError.invalidInput("cannot shrink the stderr pipe (F_SETPIPE_SZ): \(String(cString: strerror(errno)))")
            }
            #endif
            self.pipe = pipe
            process.standardError = pipe
        }
        try process.run()
    }

    var isRunning: Bool { process.isRunning }

    /// Sends SIGKILL (the child cannot catch it or clean up).
    func kill() { sendSIGKILL(process.processIdentifier) }

    /// Waits until the child has ended, polling; `false` when it still runs after `seconds`.
    func waitForExit(seconds: Double = 120) async throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning {
            if Date() > deadline { return false }
            try await Task.sleep(nanoseconds: 2_000_000)
        }
        return true
    }

    /// Whether the child ended by our SIGKILL (and not by exiting on its own).
    var endedBySIGKILL: Bool { !process.isRunning && process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL }

    /// What the child wrote on stderr (for a pipe: what is still in it, at most one page).
    var errorText: String {
        switch errorOutput {
        case let .file(path):
            return (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        case .smallUnreadPipe:
            guard let pipe, !process.isRunning else { return "" }
            let fd = pipe.fileHandleForReading.fileDescriptor
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(fd, &chunk, chunk.count)
                if count <= 0 { break }
                bytes.append(contentsOf: chunk[..<count])
            }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    /// How the child ended and what it said, for failure messages.
    var ending: String {
        if process.isRunning { return "still running" }
        let how = process.terminationReason == .uncaughtSignal ? "killed by signal \(process.terminationStatus)"
                                                               : "exited with status \(process.terminationStatus)"
        let text = errorText.trimmingCharacters(in: .whitespacesAndNewlines)
        return how + "; stderr: " + (text.isEmpty ? "(empty)" : String(text.suffix(2_000)))
    }
}

/// `kill(pid, SIGKILL)` under a name that does not clash with ``SpawnedBracelet/kill()``.
private func sendSIGKILL(_ pid: Int32) { _ = kill(pid, SIGKILL) }
