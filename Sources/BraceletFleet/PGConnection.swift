import BraceletSync
import CLibPQ
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One libpq connection, used from one thread at a time (the owner serialises calls).
///
/// Every value goes as a text parameter (`$1`, `$2`, ...) and comes back as text: no SQL is ever
/// built from data. Calls block the calling thread on the network, each for a bounded time:
/// connecting for libpq's `connect_timeout` per host (covering TLS and the login), a statement until
/// the server's `statement_timeout` plus ``FleetTimeouts/graceSeconds`` pass with no byte moving
/// (the server cancels a slow statement itself; the client deadline catches a server or network
/// path that stalls, which cannot), and not at all once its interrupt fired.
final class PGConnection {
    private let connection: OpaquePointer
    let server: FleetServer
    let timeouts: FleetTimeouts
    /// Ends every wait at once when it fires (set per call by the sink: a cancelled delivery).
    var interrupt: WaitInterrupt?
    /// The client deadline of the statements now running, seconds (see ``allowing(seconds:_:)``).
    private var clientSeconds: Int
    /// Set once the connection was given up (deadline, interrupt): libpq's state is then unknown.
    private var abandoned = false

    /// Connects to `server`. libpq reads every option of the URI (`sslmode` and the other TLS
    /// settings, `connect_timeout`, several hosts); a URI without `connect_timeout` waits
    /// ``FleetTimeouts/defaultConnectSeconds`` per host, and TCP keepalives find a dead peer of an
    /// idle connection. Then the session's `statement_timeout` is set.
    ///
    /// - Throws: ``FleetError/connection(server:detail:)`` when the server cannot be reached, or
    ///   ``FleetError/server(sqlState:message:)`` when it refuses the login (password, database).
    init(server: FleetServer, timeouts: FleetTimeouts = FleetTimeouts(), interrupt: WaitInterrupt? = nil) throws {
        self.server = server
        self.timeouts = timeouts
        self.interrupt = interrupt
        clientSeconds = timeouts.clientSeconds
        // Keywords before `dbname` are defaults the URI's own values override.
        let defaults: [(String, String)] = [
            ("connect_timeout", String(FleetTimeouts.defaultConnectSeconds)), ("application_name", "bracelet"),
            ("keepalives", "1"), ("keepalives_idle", "30"), ("keepalives_interval", "10"), ("keepalives_count", "3"),
        ]
        let keywords = defaults.map(\.0) + ["dbname"]
        let values = defaults.map(\.1) + [server.uri]
        let made: OpaquePointer? = withCStrings(keywords) { keys in
            withCStrings(values) { vals in PQconnectdbParams(keys, vals, 1) }
        }
        guard let made else { throw FleetError.connection(server: server.description, detail: "libpq could not allocate a connection") }
        guard PQstatus(made) == CONNECTION_OK else {
            let detail = PGConnection.message(PQerrorMessage(made))
            PQfinish(made)
            throw PGConnection.loginError(detail, server: server)
        }
        connection = made
        // Notices (a server shutting down warns every session) are not printed: errors say it.
        PQsetNoticeProcessor(made, { _, _ in }, nil)
        // Non-blocking: a statement is sent and its answer awaited in `poll`, with a deadline.
        guard PQsetnonblocking(made, 1) == 0 else { throw brokenOrRefused(nil) }
        try execute("SET client_min_messages = warning")
        try execute("SET DateStyle = ISO")
        try execute("SET statement_timeout = '\(timeouts.statementSeconds)s'")
    }

    deinit {
        PQfinish(connection)
    }

    /// Whether the connection is still usable (it broke when the server went away or a wait ended it).
    var isOpen: Bool { !abandoned && PQstatus(connection) == CONNECTION_OK }

    /// Runs `body` with statements allowed `seconds` each, on the server (`SET LOCAL statement_timeout`,
    /// so call it inside a transaction) and in the client's deadline: for a schema migration, whose
    /// index builds on a large fleet take longer than a delivery's statements may.
    func allowing<T>(seconds: Int, _ body: () throws -> T) throws -> T {
        try execute("SET LOCAL statement_timeout = '\(seconds)s'")
        let saved = clientSeconds
        clientSeconds = seconds + FleetTimeouts.graceSeconds
        defer { clientSeconds = saved }
        return try body()
    }

    /// Runs one statement with text parameters (`nil` is SQL NULL) and returns its rows as text.
    ///
    /// - Throws: ``FleetError/server(sqlState:message:)`` when the server refuses it,
    ///   ``FleetError/connection(server:detail:)`` when the connection broke, or no byte moved for
    ///   the client deadline (the connection is then given up).
    @discardableResult
    func execute(_ sql: String, _ parameters: [String?] = []) throws -> PGRows {
        guard !abandoned else { throw FleetError.connection(server: server.description, detail: "the connection was given up") }
        let sent = withOptionalCStrings(parameters) { pointers in
            PQsendQueryParams(connection, sql, Int32(parameters.count), nil, pointers, nil, nil, 0)
        }
        guard sent == 1 else { throw brokenOrRefused(nil) }
        // Send what libpq could not write at once (a batch of rows is megabytes).
        while true {
            let flushed = PQflush(connection)
            if flushed == 0 { break }
            guard flushed == 1 else { throw brokenOrRefused(nil) }
            try wait(writing: true)
            guard PQconsumeInput(connection) == 1 else { throw brokenOrRefused(nil) }
        }
        // Every result of the statement: the first one tells, the rest are read to leave the
        // connection ready for the next statement.
        var first: OpaquePointer?
        defer { if let first { PQclear(first) } }
        while true {
            while PQisBusy(connection) == 1 {
                try wait(writing: false)
                guard PQconsumeInput(connection) == 1 else { throw brokenOrRefused(first) }
            }
            guard let result = PQgetResult(connection) else { break }
            if first == nil { first = result } else { PQclear(result) }
        }
        guard let result = first else { throw brokenOrRefused(nil) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK:
            var rows = PGRows()
            let columns = PQnfields(result)
            for row in 0..<PQntuples(result) {
                rows.values.append((0..<columns).map { column in
                    PQgetisnull(result, row, column) == 1 ? nil : String(cString: PQgetvalue(result, row, column))
                })
            }
            rows.affected = Int(String(cString: PQcmdTuples(result))) ?? 0
            return rows
        default:
            throw brokenOrRefused(result)
        }
    }

    /// Waits until the socket can be read (or written, when `writing`), for at most the client
    /// deadline with no progress; ends at once when the interrupt fires.
    private func wait(writing: Bool) throws {
        let socket = PQsocket(connection)
        guard socket >= 0 else { throw brokenOrRefused(nil) }
        var descriptors = [pollfd(fd: socket, events: Int16(POLLIN) | (writing ? Int16(POLLOUT) : 0), revents: 0)]
        if let wake = interrupt?.wakeDescriptor { descriptors.append(pollfd(fd: wake, events: Int16(POLLIN), revents: 0)) }
        let deadline = ContinuousClock.now + .seconds(clientSeconds)
        while true {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else {
                abandoned = true
                throw FleetError.connection(server: server.description, detail: "no answer within \(clientSeconds) s (the session's "
                    + "statement_timeout \(clientSeconds - FleetTimeouts.graceSeconds) s + \(FleetTimeouts.graceSeconds) s): the server "
                    + "or the network path stalls; the connection was closed")
            }
            for index in descriptors.indices { descriptors[index].revents = 0 }
            let ready = poll(&descriptors, nfds_t(descriptors.count), left.pollMilliseconds)
            if ready < 0 && errno == EINTR { continue }
            guard ready >= 0 else { throw brokenOrRefused(nil) }
            if descriptors.count > 1 && descriptors[1].revents != 0 {
                abandoned = true
                throw CancellationError()
            }
            if ready > 0 { return }
        }
    }

    /// The error of a failed statement: the connection's loss when it is gone, else the server's
    /// SQLSTATE and message.
    private func brokenOrRefused(_ result: OpaquePointer?) -> FleetError {
        let state = result.flatMap { PQresultErrorField($0, Int32(UInt8(ascii: "C"))) }.map { String(cString: $0) }
        // The primary message only: the full one repeats the statement with a caret under the error.
        let primary = result.flatMap { PQresultErrorField($0, Int32(UInt8(ascii: "M"))) }
        let message = PGConnection.message(primary ?? PQerrorMessage(connection))
        if let state, !state.isEmpty, isOpen || !state.hasPrefix("08") { return .server(sqlState: state, message: message) }
        return .connection(server: server.description, detail: message.isEmpty ? "the connection was lost" : message)
    }

    /// A login failure: the server's refusal (wrong password, no such role or database) is a
    /// configuration problem; anything else (refused, timed out, starting up) may pass.
    static func loginError(_ detail: String, server: FleetServer) -> FleetError {
        if let advice = tlsAdvice(detail) { return .tls(server: server.description, detail: detail, advice: advice) }
        if detail.contains("authentication failed") || detail.contains("no pg_hba.conf entry") {
            return .server(sqlState: "28P01", message: detail)
        }
        if detail.contains("does not exist") && !detail.contains("No such file") {
            return .server(sqlState: "3D000", message: detail)
        }
        return .connection(server: server.description, detail: detail)
    }

    /// What to do about a TLS failure libpq reported, `nil` when `detail` is not one. libpq's words
    /// name the mechanism; the advice names the setting to change.
    static func tlsAdvice(_ detail: String) -> String? {
        if detail.contains("does not match host name") {
            return "the server's certificate is issued for another name than the host in the URL (a wrong or impostor server, "
                + "or a certificate made for another name): connect by the name the certificate carries, or have the server's "
                + "certificate reissued with this host in its subjectAltName"
        }
        if detail.contains("certificate verify failed") {
            return "the server's certificate is not signed by the CA in the URL's sslrootcert (a wrong or impostor server, or "
                + "the wrong CA file): set sslrootcert to the fleet's CA certificate"
        }
        if detail.contains("root certificate file") && detail.contains("does not exist") {
            return "sslmode=verify-ca/verify-full needs the fleet's CA certificate: set sslrootcert=/path/to/ca.crt in the URL"
        }
        if detail.contains("server does not support SSL") {
            return "the server does not offer TLS but the URL's sslmode requires it: enable ssl on the server (ssl = on, "
                + "ssl_cert_file, ssl_key_file)"
        }
        if detail.contains("SSL error") || detail.contains("could not read root certificate") || detail.contains("SSL SYSCALL") {
            return "the TLS handshake failed: check sslmode, sslrootcert and the server's ssl settings"
        }
        return nil
    }

    /// `text` as a quoted SQL literal (for the few statements that take no parameters: CREATE ROLE).
    func literal(_ text: String) throws -> String {
        guard let quoted = PQescapeLiteral(connection, text, text.utf8.count) else { throw brokenOrRefused(nil) }
        defer { PQfreemem(quoted) }
        return String(cString: quoted)
    }

    /// `name` as a quoted SQL identifier.
    func identifier(_ name: String) throws -> String {
        guard let quoted = PQescapeIdentifier(connection, name, name.utf8.count) else { throw brokenOrRefused(nil) }
        defer { PQfreemem(quoted) }
        return String(cString: quoted)
    }

    /// The SCRAM-SHA-256 verifier of `password` for `role`, made here: the password itself never
    /// reaches the server (nor its statement log), as with psql's `\password`.
    func scramVerifier(password: String, role: String) throws -> String {
        guard let made = PQencryptPasswordConn(connection, password, role, "scram-sha-256") else { throw brokenOrRefused(nil) }
        defer { PQfreemem(made) }
        return String(cString: made)
    }

    static func message(_ text: UnsafePointer<CChar>?) -> String {
        guard let text else { return "" }
        return String(cString: text).trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "\n", with: " ")
    }
}

/// Rows of a result, every value as text (`nil` for NULL).
struct PGRows {
    /// Row by row, column by column.
    var values: [[String?]] = []
    /// Rows inserted, updated or deleted by the statement.
    var affected = 0
}

private func withCStrings<R>(_ strings: [String], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
    let copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    return body(copies.map { UnsafePointer($0) } + [nil])
}

private func withOptionalCStrings<R>(_ strings: [String?], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
    let copies = strings.map { $0.map { strdup($0) } ?? nil }
    defer { copies.forEach { free($0) } }
    return body(copies.map { UnsafePointer($0) })
}
