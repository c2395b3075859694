import Foundation
import Testing

/// A fleet database URL with a password on the command line is refused by every command that takes
/// `--postgres`, with the same message and before anything connects or changes: none warns and goes on.
@Suite struct FleetURLPasswordTests {
    @Test func everyCommandRefusesAPasswordInPostgres() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let db = folder + "/g.db"
        #expect(try bracelet(["gateway", "enroll", "--db", db, "--via", "unix:" + folder + "/x.sock"]).status == 0)
        // Port 9 (discard) on loopback: a command that tried to connect would be refused at once.
        let url = "postgresql://rd:s3cret@127.0.0.1:9/fleet"
        let commands: [[String]] = [
            ["fleet", "status", "--postgres", url],
            ["fleet", "score", "--postgres", url, "--age", "40"],
            ["fleet", "migrate", "--postgres", url],
            ["score", "--postgres", url, "--device", "SN000001", "--age", "40"],
            ["summarize", "--postgres", url, "--device", "SN000001"],
            ["report", "--study", "--postgres", url],
            ["sync", "--db", db, "--postgres", url, "--once"],
            ["gateway", "run", "--db", db, "--postgres", url],
        ]
        for arguments in commands {
            let result = try runBounded(braceletBinary(), arguments)
            #expect(result.status == 64, "\(arguments): \(result.err)")
            #expect(result.err.contains("the password in --postgres is visible to every user of this host (ps, /proc): give the URL in "
                                        + "$BRACELET_POSTGRES_URL or --postgres-file FILE (mode 0600)"), "\(arguments): \(result.err)")
            #expect(!result.err.contains("s3cret") && !result.err.lowercased().contains("warning"), "\(arguments): \(result.err)")
        }
    }
}
