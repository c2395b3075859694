import BraceletFleet
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A throwaway PostgreSQL 15 cluster started by the project's own `tools/pg-cluster.sh`, stopped
/// and removed when the value is released.
final class TestCluster {
    /// The cluster directory (socket, data, log).
    let directory: String
    /// `postgresql://bracelet:PASSWORD@127.0.0.1:PORT/bracelet`.
    let url: String

    /// The repository's root, from this file's path.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    /// Whether the PostgreSQL binaries the script needs are installed.
    static let available = FileManager.default.isExecutableFile(atPath: "/usr/lib/postgresql/15/bin/initdb")
        || ProcessInfo.processInfo.environment["PG_BIN"] != nil

    /// Why the tests are skipped when they are.
    static let skipReason: Comment = "PostgreSQL 15 binaries are absent (/usr/lib/postgresql/15/bin): run tools/install-system-packages.sh"

    /// Starts a new cluster.
    init() throws {
        let output = try TestCluster.script(["start"])
        let fields = output.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "\t").map(String.init)
        guard fields.count == 2 else { throw ScriptError(text: "pg-cluster.sh start printed \(fields.count) fields") }
        directory = fields[0]
        url = fields[1]
    }

    deinit {
        _ = try? TestCluster.script(["stop", directory])
    }

    /// The password of the URL (to check it is never printed).
    var password: String {
        let userInfo = url.split(separator: "@")[0].dropFirst("postgresql://".count)
        return String(userInfo.split(separator: ":")[1])
    }

    /// This cluster's fleet database with another role's credentials.
    func server(as credentials: FleetAdmin.Credentials) throws -> FleetServer {
        let hostAndDatabase = url.split(separator: "@", maxSplits: 1)[1]
        return try FleetServer(uri: "postgresql://\(credentials.role):\(credentials.password)@\(hostAndDatabase)")
    }

    /// Stops the server at once (like a crash), keeping its data.
    func kill() throws { _ = try TestCluster.script(["kill", directory]) }

    /// Starts the stopped server again on the same port.
    func up() throws { _ = try TestCluster.script(["up", directory]) }

    struct ScriptError: Error, CustomStringConvertible {
        let text: String
        var description: String { text }
    }

    /// Runs tools/pg-cluster.sh and returns its standard output (its stderr goes to the test log).
    ///
    /// Through popen, which waits for the script itself: `Process.waitUntilExit` was seen to hang
    /// here, the script having exited while the server it started lives on.
    static func script(_ arguments: [String]) throws -> String {
        let command = (["/bin/bash", "\(root)/tools/pg-cluster.sh"] + arguments).map { "'\($0)'" }.joined(separator: " ")
        guard let pipe = popen(command, "r") else { throw ScriptError(text: "cannot run pg-cluster.sh") }
        var output = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&buffer, 1, buffer.count, pipe)
            if count == 0 { break }
            output.append(contentsOf: buffer[0..<count])
        }
        let status = pclose(pipe)
        guard status == 0 else { throw ScriptError(text: "pg-cluster.sh \(arguments.joined(separator: " ")) failed (status \(status)); see its message above") }
        return String(decoding: output, as: UTF8.self)
    }
}
