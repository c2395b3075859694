import BraceletGateway
import BraceletStore
import Foundation
import Glibc
import Synchronization
import Testing

/// A gateway left with nothing to sync says so, names the command that gives it work, and says it
/// again now and then until a bracelet is enrolled.
@Suite(.serialized) struct EmptyGatewayTests {
    /// The reminder at the first read of the enrolments, again every `emptyReminderSeconds` while
    /// none is enrolled, and no more once one is.
    @Test func theReminderRepeatsUntilABraceletIsEnrolled() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try Store(path: folder + "/g.db")
        var settings = Gateway.Settings()
        settings.reloadSeconds = 0.05
        settings.emptyReminderSeconds = 0.4
        let reminders = Mutex<[String]>([])
        let gateway = Gateway(store: store, settings: settings) { event in
            if case .nothingEnrolled(let database) = event { reminders.withLock { $0.append(database) } }
        }
        let finished = DispatchSemaphore(value: 0)
        Thread { gateway.run(); finished.signal() }.start()
        defer { gateway.stop(); finished.wait() }
        let deadline = Date().addingTimeInterval(20)
        while reminders.withLock({ $0.count }) < 3, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        #expect(reminders.withLock { $0 } == [store.path, store.path, store.path])

        _ = try store.enrol(GatewayEnrolment(endpoint: "unix:" + folder + "/none.sock", timeZone: "UTC"))
        gateway.requestReload()
        let enrolledAt = Date()
        while gateway.enrolled.isEmpty, Date() < enrolledAt.addingTimeInterval(10) { Thread.sleep(forTimeInterval: 0.02) }
        let count = reminders.withLock { $0.count }
        Thread.sleep(forTimeInterval: 1)
        #expect(reminders.withLock { $0.count } == count, "no reminder while a bracelet is enrolled")
    }

    /// `bracelet gateway run` on an empty database names `bracelet gateway enroll` with that
    /// database as a warning (journal priority 4: a service logging only warnings shows it), at once: the line right
    /// after its start line, said at the first read of the enrolments rather than after a timer
    /// (by hand: 0.4-0.9 s after the start of the debug build at load 16). The wait for it is bounded
    /// generously, since a loaded test machine starts processes slowly.
    @Test func gatewayRunWithNothingEnrolledNamesGatewayEnrollAtOnce() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let db = folder + "/empty.db", log = folder + "/run.log"
        try #require(FileManager.default.createFile(atPath: log, contents: nil))
        let process = Process()
        process.executableURL = try braceletBinary()
        process.arguments = ["gateway", "run", "--db", db]
        // As under systemd: each line carries its priority, so the journal's level shows.
        process.environment = ProcessInfo.processInfo.environment.merging(["JOURNAL_STREAM": "8:12345"]) { $1 }
        process.standardError = FileHandle(forWritingAtPath: log)
        process.standardOutput = FileHandle.nullDevice
        let started = Date()
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        var text = ""
        while !text.contains("gateway enroll"), Date() < started.addingTimeInterval(30), process.isRunning {
            try await Task.sleep(nanoseconds: 50_000_000)
            text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        }
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.count >= 2, "\(text)")
        #expect(lines.first?.hasPrefix("<6>gateway: 0 enrolled bracelet(s)") == true, "\(text)")
        #expect(lines.dropFirst().first?.hasPrefix("<4>gateway: no bracelet is enrolled in \(db), so there is nothing to sync: "
                + "enrol a bracelet with `bracelet gateway enroll --db \(db) --device ADDRESS --user ID --tz ZONE`") == true, "\(text)")
        kill(process.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(20)
        while process.isRunning, Date() < deadline { try await Task.sleep(nanoseconds: 50_000_000) }
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
    }
}
