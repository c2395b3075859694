import Foundation
import Testing

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

    /// Stops the server at once (like a crash), keeping its data.
    func kill() throws { _ = try TestCluster.script(["kill", directory]) }

    /// Starts the stopped server again on the same port.
    func up() throws { _ = try TestCluster.script(["up", directory]) }

    struct ScriptError: Error, CustomStringConvertible {
        let text: String
        var description: String { text }
    }

    /// Runs tools/pg-cluster.sh and returns its standard output.
    static func script(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["\(root)/tools/pg-cluster.sh"] + arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ScriptError(text: "pg-cluster.sh \(arguments.joined(separator: " ")) failed: \(String(decoding: errors, as: UTF8.self))")
        }
        return String(decoding: data, as: UTF8.self)
    }
}
