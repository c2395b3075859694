import Foundation
import Glibc
import Testing

/// A person who runs a command on the gateway's files (its folder is the service user's, mode 0700)
/// is told that permission was denied and to run it as the service user, for the database and for
/// a secret file alike: never the system's text of an unrelated errno.
@Suite struct PermissionAdviceTests {
    /// Runs `bracelet` as a user who may not enter `locked`: as root, the user nobody (root reads
    /// everything); otherwise this user, with `locked` made unreadable.
    static func asOutsider(_ arguments: [String], locked: String) throws -> (status: Int32?, err: String) {
        if getuid() != 0 { chmod(locked, 0) }
        defer { if getuid() != 0 { chmod(locked, 0o700) } }
        return getuid() == 0
            ? try runBounded(URL(fileURLWithPath: "/usr/bin/setpriv"),
                             ["--reuid=nobody", "--regid=nogroup", "--clear-groups", try braceletBinary().path] + arguments)
            : try runBounded(braceletBinary(), arguments)
    }

    @Test func aDatabaseOrSecretThisUserMayNotReadNamesTheServiceUser() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // The outsider may reach `folder` but not `state`, as a person and /var/lib/bracelet.
        chmod(folder, 0o755)
        let state = folder + "/state"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        let db = state + "/gateway.db"
        #expect(try bracelet(["gateway", "enroll", "--db", db, "--via", "unix:" + folder + "/x.sock"]).status == 0)
        let secret = state + "/webhook-secret"
        try Data("s3cret\n".utf8).write(to: URL(fileURLWithPath: secret))
        chmod(secret, 0o600)

        let status = try Self.asOutsider(["gateway", "status", "--db", db], locked: state)
        #expect(status.status != 0)
        #expect(status.err.contains("\(db): permission denied") && status.err.contains("sudo -u bracelet bracelet"), "\(status.err)")
        #expect(!status.err.contains("Success"), "\(status.err)")

        let sync = try Self.asOutsider(["sync", "--db", folder + "/other.db", "--webhook", "http://127.0.0.1:9/hook",
                                        "--secret-file", secret, "--once"], locked: state)
        #expect(sync.status != 0)
        #expect(sync.err.contains("--secret-file \(secret): permission denied") && sync.err.contains("sudo -u bracelet bracelet"), "\(sync.err)")
        #expect(!sync.err.contains("Success") && !sync.err.contains("s3cret"), "\(sync.err)")

        // The folder open, the file the service user's own (mode 0600): SQLite's open is refused alike.
        if getuid() == 0 {
            chmod(state, 0o755)
            chmod(db, 0o600)
            let file = try Self.asOutsider(["gateway", "status", "--db", db], locked: folder + "/none")
            #expect(file.status != 0)
            #expect(file.err.contains("Error: cannot open database \(db): permission denied") && file.err.contains("sudo -u bracelet bracelet"),
                    "\(file.err)")
        }
    }
}
