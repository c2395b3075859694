import BraceletStore
import Foundation
import Testing
@testable import BraceletSync

/// A receiver that takes an entry only when its Standard Webhooks signature is made with `secret`.
private func verifyingServer(secret: String) throws -> TestHTTPServer {
    let key = try StandardWebhookKey(secret: secret)
    return try TestHTTPServer { request, _ in
        guard let id = request.headers["webhook-id"], let timestamp = request.headers["webhook-timestamp"].flatMap({ Int64($0) }),
              let body = try? request.decodedBody,
              request.headers["webhook-signature"] == key.signature(id: id, timestamp: timestamp, body: body)
        else { return .respond(status: 401, body: "bad signature") }
        return .respond(status: 200, body: "")
    }
}

/// Secrets come from where no other user of the host reads them: a private file, the environment,
/// a systemd credential. A secret on the command line still works, with a warning; a file others
/// can read is refused; an empty credential (the unit's fallback when its file is absent) is none.
@Test func theWebhookSecretComesFromAFileTheEnvironmentOrASystemdCredential() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("s.db")
    let store = try Store(path: path)
    let server = try verifyingServer(secret: "s3cret")
    defer { server.stop() }
    var day = 0
    /// One run with a new entry; whether the receiver took it.
    func deliver(_ options: [String], environment: [String: String] = [:]) throws -> (status: Int32, err: String) {
        day += 1
        try enqueue(store, device: "A", date: "2024-03-0\(day)", value: day)
        let result = try runBracelet(["sync", "--db", path, "--webhook", server.url, "--once"] + options, environment: environment)
        return (result.status, result.err)
    }

    let file = folder.path("secret")
    try Data("s3cret\n".utf8).write(to: URL(fileURLWithPath: file))
    chmod(file, 0o644)
    let open = try deliver(["--secret-file", file])
    #expect(open.status == 1 && open.err.contains("--secret-file \(file) has mode 644: it holds a secret, so make it private (chmod 600"),
            "stderr: \(open.err)")
    chmod(file, 0o600)
    let fromFile = try deliver(["--secret-file", file])
    #expect(fromFile.status == 0, "stderr: \(fromFile.err)")
    #expect(!fromFile.err.contains("warning"))

    let fromEnvironment = try deliver([], environment: ["BRACELET_WEBHOOK_SECRET": "s3cret"])
    #expect(fromEnvironment.status == 0, "stderr: \(fromEnvironment.err)")

    let credentials = folder.path("credentials")
    try FileManager.default.createDirectory(atPath: credentials, withIntermediateDirectories: true)
    try Data("s3cret".utf8).write(to: URL(fileURLWithPath: credentials + "/webhook-secret"))
    let fromCredential = try deliver([], environment: ["CREDENTIALS_DIRECTORY": credentials])
    #expect(fromCredential.status == 0, "stderr: \(fromCredential.err)")

    let onCommandLine = try deliver(["--secret", "s3cret"])
    #expect(onCommandLine.status == 0)
    #expect(onCommandLine.err.contains("warning: --secret on a command line is readable by every user of this host"))

    // The unit's empty fallback credential is no secret at all.
    try Data().write(to: URL(fileURLWithPath: credentials + "/webhook-secret"))
    let empty = try deliver([], environment: ["CREDENTIALS_DIRECTORY": credentials])
    #expect(empty.status == 64 && empty.err.contains("--webhook needs its secret"), "stderr: \(empty.err)")
    // Every entry but the last: the refused run's entry went with the next one.
    #expect(try store.outboxCounts() == OutboxCounts(pending: 1, delivered: 5, dead: 0))
}

/// `gateway run` honours `$BRACELET_POSTGRES_URL` and the systemd credential `postgres-url` when no
/// sink option is given (it once logged "no sink given"), and shows the URL without its password.
@Test(arguments: ["environment", "credential"])
func gatewayRunTakesTheFleetURLFromTheEnvironment(source: String) throws {
    let folder = try TemporaryFolder()
    let path = folder.path("g.db")
    _ = try Store(path: path)
    let port = try unusedLocalPort()
    let url = "postgresql://gw:pa55word@127.0.0.1:\(port)/fleet?connect_timeout=2"
    var environment: [String: String] = [:]
    if source == "environment" {
        environment["BRACELET_POSTGRES_URL"] = url
    } else {
        let credentials = folder.path("credentials")
        try FileManager.default.createDirectory(atPath: credentials, withIntermediateDirectories: true)
        try Data((url + "\n").utf8).write(to: URL(fileURLWithPath: credentials + "/postgres-url"))
        environment["CREDENTIALS_DIRECTORY"] = credentials
    }
    let gateway = try startBracelet(["gateway", "run", "--db", path], environment: environment)
    let line = "delivering to postgres postgresql://gw:***@127.0.0.1:\(port)/fleet?connect_timeout=2"
    let started = waitUntil(seconds: 60) { gateway.err.contains(line) }
    let err = gateway.err
    try stop(gateway, deadlineSeconds: 30)
    #expect(started, "stderr: \(err)")
    #expect(!err.contains("no sink given"))
    #expect(!err.contains("pa55word"))
}
