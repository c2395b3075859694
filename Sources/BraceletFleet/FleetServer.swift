import BraceletDecoder
import CLibPQ
import Foundation

/// Where the fleet database is: a libpq connection URI (`postgresql://user:password@host:port/db?sslmode=...`),
/// kept with the password out of everything it prints.
///
/// Every option of the URI (`sslmode`, `sslrootcert`, `connect_timeout`, `target_session_attrs`,
/// several hosts for failover, ...) is passed to libpq as it is; only the description is redacted,
/// by parsing the URI (``BraceletDecoder/URLRedaction``), never by searching for the password's text.
public struct FleetServer: Sendable, Equatable, CustomStringConvertible {
    /// The URI as given, password included: handed to libpq only.
    let uri: String
    /// Whether the URI itself carries a password (user info or a `password=` parameter), as libpq reads it.
    public let hasPassword: Bool

    /// Checks that `uri` is a `postgresql://` or `postgres://` URI that libpq can read, with a
    /// connection timeout that ends.
    ///
    /// - Throws: ``FleetError/invalidURL(_:)`` (the URI redacted, and what is wrong) otherwise.
    public init(uri: String) throws {
        self.uri = uri
        let shown = URLRedaction.redacted(uri)
        guard uri.hasPrefix("postgresql://") || uri.hasPrefix("postgres://") else { throw FleetError.invalidURL(shown) }
        let options = try FleetServer.parse(uri, shown: shown)
        hasPassword = !(options["password"] ?? "").isEmpty
        // libpq waits forever for a connection when connect_timeout is 0 or negative.
        if let timeout = options["connect_timeout"], (Int(timeout.trimmingCharacters(in: .whitespaces)) ?? 0) <= 0 {
            throw FleetError.invalidURL(shown + " (connect_timeout=\(timeout) would wait for a connection forever: give a number "
                + "of seconds, e.g. connect_timeout=10, or leave it out for \(FleetTimeouts.defaultConnectSeconds) s)")
        }
    }

    /// The URI with its user info and query values hidden: what logs, errors and the delivery log show.
    public var description: String { URLRedaction.redacted(uri) }

    /// The options libpq reads from `uri` (keyword to value; only those set).
    ///
    /// libpq's own complaint is passed on only when it names a parameter: its other messages quote
    /// the part of the URI it could not read, which may be the password.
    static func parse(_ uri: String, shown: String) throws -> [String: String] {
        try requireLibPQ()
        var error: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(uri, &error) else {
            let message = error.map { String(cString: $0).trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
            if let error { PQfreemem(error) }
            let named = message.hasPrefix("invalid URI query parameter") || message.hasPrefix("invalid connection option")
            throw FleetError.invalidURL(shown + (named ? " (\(message))" : " (libpq cannot read it: check its percent-encoding, "
                + "e.g. a @ in the password written %40)"))
        }
        defer { PQconninfoFree(options) }
        var found: [String: String] = [:]
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val { found[String(cString: keyword)] = String(cString: value) }
            option += 1
        }
        return found
    }
}

/// How long the fleet database may keep a gateway waiting. Every wait ends: a server that takes
/// the login and then never answers, or a network path that freezes, costs one timeout and a retry,
/// never a stuck process.
public struct FleetTimeouts: Sendable, Equatable {
    /// The default connect timeout (libpq's `connect_timeout`, per host; a URI's own value wins).
    public static let defaultConnectSeconds = 10
    /// The server's `statement_timeout`, seconds: a statement running longer is cancelled by the server.
    public var statementSeconds: Int
    /// How long the client waits with no byte moving, beyond the statement timeout, before it
    /// gives the connection up (a server or path that stalls cannot cancel anything itself).
    public static let graceSeconds = 5

    /// Statements may run `statementSeconds` (1 to 3600; default 30).
    public init(statementSeconds: Int = 30) {
        self.statementSeconds = min(3_600, max(1, statementSeconds))
    }

    /// The client's deadline for a statement: no byte in or out for this long ends the connection.
    public var clientSeconds: Int { statementSeconds + FleetTimeouts.graceSeconds }
}

/// Opens libpq if this process has not yet (it is opened at the first fleet call, not at start):
/// every path into libpq passes here first, a server's URI being read before any connection.
///
/// - Throws: ``FleetError/noClientLibrary(detail:)`` when libpq.so.5 cannot be opened.
func requireLibPQ() throws {
    var why: UnsafePointer<CChar>?
    guard bracelet_libpq_load(&why) == 1 else { throw FleetError.noClientLibrary(detail: why.map { String(cString: $0) } ?? "unknown") }
}
