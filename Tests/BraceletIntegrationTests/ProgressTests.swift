import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The lines a process wrote on standard error, each with when it arrived (seconds after the spawn).
struct TimedLines {
    var status: Int32
    var lines: [(at: Double, text: String)]
    /// Seconds from the spawn to the exit.
    var duration: Double

    /// The progress lines of `prefix` (after a journal priority, if any): the reporter's phases,
    /// not the command's other messages.
    func progress(_ prefix: String) -> [(at: Double, text: String)] {
        let phases = ["opening ", "connecting ", "connected; asking", "backlog ", "reading ", "storing ", "recomputing: "]
        return lines.filter { line in
            let text = line.text.hasPrefix("<") ? String(line.text.dropFirst(3)) : line.text
            return text.hasPrefix(prefix) && phases.contains { text.dropFirst(prefix.count).hasPrefix($0) }
        }
    }
}

/// Runs the built `bracelet` in `folder` with standard error on a pipe (or on `stderr` when given),
/// timing each line as it arrives; waits at most `seconds`. With `interrupt`, it gets SIGINT that
/// many seconds after the first line containing that text (a command that runs until Ctrl-C).
func timedStderr(_ arguments: [String], in folder: String, environment extra: [String: String] = [:],
                 seconds: Double = 180, interrupt: (after: String, seconds: Double)? = nil) async throws -> TimedLines {
    let process = Process()
    process.executableURL = try builtBracelet()
    process.arguments = arguments
    process.currentDirectoryURL = URL(fileURLWithPath: folder)
    process.environment = ProcessInfo.processInfo.environment.merging(extra) { $1 }
    process.environment?["JOURNAL_STREAM"] = extra["JOURNAL_STREAM"]
    process.standardOutput = FileHandle.nullDevice
    let pipe = Pipe()
    process.standardError = pipe
    let lock = NSLock()
    nonisolated(unsafe) var lines: [(at: Double, text: String)] = []
    let ended = DispatchSemaphore(value: 0)
    let start = Date()
    try process.run()
    let reader = pipe.fileHandleForReading
    let pid = process.processIdentifier
    Thread {
        var interrupting = false
        var pending = Data()
        while true {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            let at = Date().timeIntervalSince(start)
            pending.append(chunk)
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let text = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                lock.withLock { lines.append((at, text)) }
                if let interrupt, !interrupting, text.contains(interrupt.after) {
                    interrupting = true
                    DispatchQueue.global().asyncAfter(deadline: .now() + interrupt.seconds) { kill(pid, SIGINT) }
                }
                pending.removeSubrange(pending.startIndex...newline)
            }
        }
        ended.signal()
    }.start()
    guard try await waitForExit(process, seconds: seconds) else {
        kill(process.processIdentifier, SIGKILL)
        throw CocoaError(.executableLoad, userInfo: [NSDebugDescriptionErrorKey: "bracelet \(arguments.joined(separator: " ")) did not end within \(seconds) s"])
    }
    let duration = Date().timeIntervalSince(start)
    _ = ended.wait(timeout: .now() + 10)
    return TimedLines(status: process.terminationStatus, lines: lock.withLock { lines }, duration: duration)
}

/// Long work shows signs of life: a first line within a second of the start, then, off a terminal
/// (a pipe, the journal), a progress line every interval with the rate and the time left; on a
/// terminal a bar redrawn in place; `--progress` decides whether at all. Real processes, bounded.
@Suite(.serialized) struct ProgressTests {
    static let captures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("captures").path

    func inFolder(_ body: (String) async throws -> Void) async throws { try await inTemporaryFolder("progress", body) }

    /// `bracelet simulate OPTIONS --serve unix:SOCKET --quiet`, once its socket is there (at most 30 s).
    func serving(_ socket: String, _ options: [String]) async throws -> Process {
        let simulator = Process()
        simulator.executableURL = try builtBracelet()
        simulator.arguments = ["simulate"] + options + ["--serve", "unix:\(socket)", "--quiet"]
        simulator.standardError = FileHandle.nullDevice
        simulator.standardOutput = FileHandle.nullDevice
        try simulator.run()
        for _ in 0..<600 where !FileManager.default.fileExists(atPath: socket) { try await Task.sleep(nanoseconds: 50_000_000) }
        return simulator
    }

    /// The progress lines of `run` come at the start and then at most `interval` (plus scheduling
    /// slack on a loaded machine) apart, never flooding, and carry no terminal control characters.
    func expectCadence(_ run: TimedLines, prefix: String, interval: Double, sourceLocation: SourceLocation = #_sourceLocation) {
        let lines = run.progress(prefix)
        #expect(run.status == 0, sourceLocation: sourceLocation)
        #expect(lines.first.map { $0.at <= 1.0 } == true, "first line at \(lines.first?.at ?? -1) s: \(lines.first?.text ?? "none")",
                sourceLocation: sourceLocation)
        for line in lines { #expect(!line.text.contains("\r") && !line.text.contains("\u{1B}"), "\(line.text)", sourceLocation: sourceLocation) }
        let gaps = zip(lines, lines.dropFirst()).map { $1.at - $0.at }
        let slack = 1.5
        #expect(gaps.allSatisfy { $0 <= interval + slack }, "gaps \(gaps) over \(interval) s + \(slack) s", sourceLocation: sourceLocation)
        // Within a phase, a line every interval at most (a new phase is shown as it begins).
        func phase(_ text: String) -> Substring { text.dropFirst(prefix.count).prefix { $0 != " " && $0 != ":" } }
        let repeats = zip(lines, lines.dropFirst()).filter { phase($0.text) == phase($1.text) }.map { $1.at - $0.at }
        #expect(repeats.allSatisfy { $0 >= interval * 0.8 }, "lines of one phase closer than the interval: \(repeats)", sourceLocation: sourceLocation)
        // Shown until the command's own lines on standard error follow (its results on standard
        // output, and closing the database at the exit, which may take a while on a busy disk, are
        // not the work shown).
        let lastLine = lines.last?.at ?? 0
        if let next = run.lines.first(where: { $0.at >= lastLine && !lines.map(\.text).contains($0.text) })?.at {
            #expect(next - lastLine <= interval + slack + 2, "silent for \(next - lastLine) s after the last progress line", sourceLocation: sourceLocation)
        }
    }

    @Test func ingestAndRecomputeShowALineAtOnceAndThenEveryInterval() async throws {
        try await inFolder { folder in
            let ingest = try await timedStderr(["ingest", Self.captures + "/v2-three-days.btsnoop", "--db", "d.db", "--tz", "UTC", "--age", "40",
                                                "--progress-interval", "0.5"], in: folder)
            expectCadence(ingest, prefix: "ingest: ", interval: 0.5)
            let texts = ingest.progress("ingest: ").map(\.text)
            #expect(texts.first == "ingest: opening d.db")
            #expect(texts.contains { $0.hasPrefix("ingest: reading v2-three-days.btsnoop: ") && $0.contains(" MB (") })
            #expect(texts.contains { $0.hasPrefix("ingest: recomputing: ") && $0.contains(" days (") })

            let recompute = try await timedStderr(["recompute", "--db", "d.db", "--progress-interval", "0.5"], in: folder)
            expectCadence(recompute, prefix: "recompute: ", interval: 0.5)
            #expect(recompute.progress("recompute: ").contains { $0.text.hasPrefix("recompute: recomputing: ") })
        }
    }

    @Test func underSystemdEveryProgressLineCarriesItsPriority() async throws {
        try await inFolder { folder in
            let run = try await timedStderr(["ingest", Self.captures + "/v1-day.btsnoop", "--db", "d.db", "--tz", "UTC", "--progress-interval", "0.5"],
                                            in: folder, environment: ["JOURNAL_STREAM": "8:12345"])
            let lines = run.lines.filter { $0.text.contains("ingest: ") }
            #expect(!lines.isEmpty)
            #expect(lines.allSatisfy { $0.text.hasPrefix("<6>ingest: ") }, "\(lines.map(\.text))")
        }
    }

    @Test func progressFollowsTheModeAndTheLogLevel() async throws {
        try await inFolder { folder in
            let capture = Self.captures + "/v1-day.btsnoop"
            func progressLines(_ options: [String], _ db: String) async throws -> [String] {
                let run = try await timedStderr(["ingest", capture, "--db", db, "--tz", "UTC"] + options, in: folder)
                #expect(run.status == 0)
                return run.progress("ingest: ").map(\.text)
            }
            let auto = try await progressLines([], "a.db")
            let never = try await progressLines(["--progress", "never"], "b.db")
            let quiet = try await progressLines(["--quiet"], "c.db")
            let always = try await progressLines(["--quiet", "--progress", "always"], "d.db")
            #expect(!auto.isEmpty && never.isEmpty && quiet.isEmpty && !always.isEmpty)
        }
    }

    @Test func listenSaysSomethingWithinASecondAndThroughTheTransferAndTheRecompute() async throws {
        try await inFolder { folder in
            let socket = folder + "/sim.sock"
            let simulator = try await serving(socket, ["--model", "v1", "--days", "2", "--seed", "5"])
            defer { if simulator.isRunning { kill(simulator.processIdentifier, SIGKILL) } }
            let run = try await timedStderr(["listen", "--via", "unix:\(socket)", "--db", "d.db", "--tz", "UTC", "--age", "40",
                                             "--exit-after-sync", "--progress-interval", "0.5"], in: folder)
            expectCadence(run, prefix: "listen: ", interval: 0.5)
            let texts = run.progress("listen: ").map(\.text)
            #expect(texts.contains { $0.hasPrefix("listen: backlog ") && $0.contains(" MB (") })
            #expect(texts.contains { $0.hasPrefix("listen: recomputing: ") })
        }
    }

    /// A strap's stream has no end to show progress towards: once listen knows it is one, no
    /// progress line follows (its samples on standard output are the signs of life).
    @Test func listenToAStrapShowsNoProgressWhileItStreams() async throws {
        try await inFolder { folder in
            let socket = folder + "/hr.sock"
            let simulator = try await serving(socket, ["--profile", "heart-rate"])
            defer { if simulator.isRunning { kill(simulator.processIdentifier, SIGKILL) } }
            let run = try await timedStderr(["listen", "--via", "unix:\(socket)", "--db", "d.db", "--tz", "UTC", "--age", "40",
                                             "--progress-interval", "0.3"], in: folder, seconds: 60, interrupt: ("standard sensor heart-rate", 3))
            #expect(run.status == 130)
            let sensor = try #require(run.lines.first { $0.text.contains("standard sensor heart-rate") }, "\(run.lines.map(\.text))")
            let progress = run.progress("listen: ")
            #expect(progress.contains { $0.text.hasPrefix("listen: connected; asking") })  // before it said what it is
            let after = progress.filter { $0.at > sensor.at }.map(\.text)
            #expect(after.isEmpty, "\(after)")
            #expect(run.lines.contains { $0.text.hasPrefix("listen: stored ") })
        }
    }

    @Test func onATerminalTheBarIsRedrawnInPlace() async throws {
        try await inFolder { folder in
            // A pseudo-terminal as standard error, read on the master side.
            let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
            try #require(master >= 0)
            defer { close(master) }
            // Linux's TIOCSPTLCK (_IOW('T', 0x31, int)) and TIOCGPTN (_IOR('T', 0x30, unsigned int)),
            // which Glibc's module does not export: unlock the slave, learn its number.
            var unlock: Int32 = 0, number: UInt32 = 0
            try #require(ioctl(master, 0x4004_5431, &unlock) == 0 && ioctl(master, 0x8004_5430, &number) == 0)
            let slavePath = "/dev/pts/\(number)"
            let slave = try #require(FileHandle(forWritingAtPath: slavePath))
            let process = Process()
            process.executableURL = try builtBracelet()
            process.arguments = ["ingest", Self.captures + "/v2-three-days.btsnoop", "--db", folder + "/d.db", "--tz", "UTC"]
            process.standardError = slave
            process.standardOutput = FileHandle.nullDevice
            var environment = ProcessInfo.processInfo.environment
            environment["JOURNAL_STREAM"] = nil
            process.environment = environment
            try process.run()
            try slave.close()
            var output = [UInt8]()
            let deadline = Date().addingTimeInterval(120)
            var buffer = [UInt8](repeating: 0, count: 4096)
            while Date() < deadline {
                var poller = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, 200) >= 0 else { break }
                if poller.revents & Int16(POLLIN) != 0 {
                    let n = read(master, &buffer, buffer.count)
                    if n <= 0 { break }
                    output += buffer.prefix(n)
                } else if !process.isRunning || poller.revents & Int16(POLLHUP) != 0 {
                    break
                }
            }
            #expect(try await waitForExit(process, seconds: 30))
            let text = String(decoding: output, as: UTF8.self)
            #expect(text.contains("\ringest: ["), "\(text.debugDescription)")          // a bar, drawn from the line's start
            #expect(text.contains("%") && text.contains("\u{1B}[K"))
            #expect(!text.contains("ingest: reading v2-three-days.btsnoop: 0.0/1.1 MB (0 %)\n"))  // redrawn, not a line per update
            // Cleared before the command's own lines: nothing follows the last bar but its clearing.
            let last = try #require(text.range(of: "\ringest: [", options: .backwards))
            #expect(text[last.upperBound...].contains("\r\u{1B}[K"))
            #expect(!text[last.upperBound...].split(separator: "\r\u{1B}[K").first!.contains("\n"))
        }
    }
}
