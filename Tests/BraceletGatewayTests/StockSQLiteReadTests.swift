import BraceletProtocol
import Foundation
import Glibc
import Testing

/// Runs Debian's sqlite3 shell (package sqlite3; tools/install-system-packages.sh) on `db`, as a
/// person reading the file with the plain SQL the docs show: a second SQLite program, without
/// bracelet's checksum VFS. Returns its status and output.
private func stockSQLite(_ db: String, _ sql: String) throws -> (status: Int32, out: String) {
    // Output goes to a file, not a pipe: a process another test starts at the same moment can
    // inherit a pipe's write end, and reading to its end then waits for that process too.
    let outPath = db + ".sqlite3-out"
    guard FileManager.default.createFile(atPath: outPath, contents: nil) else { throw CocoaError(.fileWriteUnknown) }
    defer { try? FileManager.default.removeItem(atPath: outPath) }
    let out = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
    process.arguments = [db, sql]
    process.standardOutput = out
    process.standardError = out
    try process.run()
    process.waitUntilExit()
    try out.close()
    let printed = try Data(contentsOf: URL(fileURLWithPath: outPath))
    return (process.terminationStatus, String(decoding: printed, as: UTF8.self))
}

/// The size of the database's WAL, 0 when there is none.
private func logSize(_ db: String) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: db + "-wal"))?[.size] as? Int) ?? 0
}

/// Whether the file system of the temporary folder keeps user extended attributes, where bracelet
/// records the time of its last write (tmpfs keeps none before Linux 6.6).
private let temporaryFolderKeepsUserXattrs: Bool = {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("bracelet-xattr-probe-\(UUID().uuidString)").path
    guard FileManager.default.createFile(atPath: path, contents: nil) else { return false }
    defer { unlink(path) }
    // setxattr(2) is not in Swift's Glibc module: looked up in the C library the process has.
    typealias SetXattr = @convention(c) (UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafeRawPointer, Int, Int32) -> Int32
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "setxattr") else { return false }
    let value: [UInt8] = [0x31]
    return value.withUnsafeBytes { unsafeBitCast(symbol, to: SetXattr.self)(path, "user.bracelet.probe", $0.baseAddress!, 1, 0) } == 0
}()

@Suite(.serialized) struct StockSQLiteReadTests {
    /// One `SELECT` with the sqlite3 shell before, during and after bracelet syncs a bracelet and
    /// delivers its summaries: every bracelet command afterwards, `db check` first, stays green.
    /// (bracelet left its WAL behind when a command ended, and the shell, closing last, copied it
    /// into the file without page checksums: "pages: 6 of 101 pages do not match their checksum".)
    @Test func aStockSqlite3ReadBeforeDuringAndAfterASyncLeavesEveryCommandGreen() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let first = try ServedBracelet(directory: folder, serial: "SQLR0001", model: .v2, slowMilliseconds: nil)
        // Slow notifications: the second sync takes tens of seconds (53 s, 419 reads on a loaded
        // 2-core machine), long enough to read during it.
        let second = try ServedBracelet(directory: folder, serial: "SQLR0002", model: .v1, slowMilliseconds: 15)
        defer { first.stop(); second.stop() }
        let db = folder + "/b.db", jsonl = folder + "/out.jsonl"

        let listen = try bracelet(["listen", "--via", "unix:" + first.path, "--db", db, "--exit-after-sync", "--quiet"])
        #expect(listen.status == 0, "\(listen.err)")
        #expect(logSize(db) == 0, "listen left its WAL behind")
        let before = try stockSQLite(db, "SELECT count(*) FROM slots")
        #expect(before.status == 0 && (Int(before.out.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) > 0, "\(before.out)")

        // During: a second listen, read with the shell until it ends.
        let process = Process()
        process.executableURL = try braceletBinary()
        process.arguments = ["listen", "--via", "unix:" + second.path, "--db", db, "--exit-after-sync", "--quiet"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        var readsDuring = 0
        let deadline = Date().addingTimeInterval(120)
        while process.isRunning && Date() < deadline {
            let read = try stockSQLite(db, "SELECT count(*) FROM slots")
            #expect(read.status == 0, "\(read.out)")
            if process.isRunning { readsDuring += 1 }  // began and ended while listen ran
            try await Task.sleep(nanoseconds: 100_000_000)
        }
        #expect(!process.isRunning, "listen did not end within 120 s")
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let devices = try stockSQLite(db, "SELECT count(*) FROM devices")
        print("stock-sqlite3 reads during the sync: \(readsDuring); devices stored: \(devices.out)")
        #expect(devices.out == "2\n", "the second listen stored no bracelet: \(devices.out)")
        #expect(readsDuring >= 1, "the sync ended before the shell could read during it")
        #expect(logSize(db) == 0, "listen left its WAL behind")

        // The case: sync --once, then one read.
        let sync = try bracelet(["sync", "--db", db, "--jsonl", jsonl, "--once"])
        #expect(sync.status == 0, "\(sync.err)")
        #expect(logSize(db) == 0, "sync left its WAL behind")
        let after = try stockSQLite(db, "SELECT count(*) FROM outbox WHERE state = 'delivered'")
        #expect(after.status == 0 && after.out != "0\n", "\(after.out)")

        let check = try bracelet(["db", "check", "--db", db])
        #expect(check.status == 0, "\(check.out)\(check.err)")
        #expect(check.out.contains("no damage found") && !check.out.contains("another"), "\(check.out)")
        for command in [["summarize", "--db", db, "--device", "SQLR0001"], ["sync", "--db", db, "--status"],
                        ["sync", "--db", db, "--jsonl", jsonl, "--once"], ["db", "check", "--db", db, "--full"]] {
            let run = try bracelet(command)
            #expect(run.status == 0, "\(command): \(run.err)")
            #expect(!run.err.contains("damage") && !run.err.contains("another program"), "\(command): \(run.err)")
        }
    }

    /// A write with the sqlite3 shell while no bracelet process has the file open is named a write
    /// from outside (the file was modified after bracelet's last write), not damage, and refused.
    @Test(.enabled(if: temporaryFolderKeepsUserXattrs,
                   "skipped: the temporary folder's file system keeps no user extended attributes (tmpfs before Linux 6.6), so bracelet cannot record its last write there and a write from outside reads as damage; set TMPDIR to a disk folder"))
    func aStockSqlite3WriteWhileNoBraceletRunsIsNamedAWriteFromOutside() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let served = try ServedBracelet(directory: folder, serial: "SQLW0001", model: .v2, slowMilliseconds: nil)
        defer { served.stop() }
        let db = folder + "/b.db"
        #expect(try bracelet(["listen", "--via", "unix:" + served.path, "--db", db, "--exit-after-sync", "--quiet"]).status == 0)
        #expect(try stockSQLite(db, "UPDATE devices SET last_seen_at = last_seen_at + 1").status == 0)

        let check = try bracelet(["db", "check", "--db", db])
        #expect(check.status == 3)
        #expect(check.out.contains("written from outside: 1 of ") && check.out.contains("(devices); another program wrote to the file at "), "\(check.out)")
        #expect(!check.out.contains("damaged"), "\(check.out)")
        #expect(check.err.contains("was changed by another program"), "\(check.err)")
        let summarize = try bracelet(["summarize", "--db", db])
        #expect(summarize.status != 0)
        #expect(summarize.err.contains("was changed by another program (page ") && !summarize.err.contains("corrupt"), "\(summarize.err)")
    }
}
