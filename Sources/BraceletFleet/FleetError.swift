/// What went wrong talking to the fleet database. Messages never contain the password.
public enum FleetError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The URL is not a PostgreSQL connection URI (shown redacted).
    case invalidURL(String)
    /// No connection could be made, or it broke (server down or restarting, network): worth retrying.
    case connection(server: String, detail: String)
    /// The server refused a statement. `sqlState` is PostgreSQL's five-character error code.
    case server(sqlState: String, message: String)
    /// The fleet schema on the server is newer than this build knows.
    case schemaNewer(found: Int, supported: Int)
    /// The database has no fleet tables: nothing was delivered into it yet.
    case noFleetTables(server: String)
    /// A stored row could not be read back (its payload is not the JSON the sink writes).
    case badRow(detail: String)
    /// The fleet schema is older than this build and this role may not upgrade it (only the owner does).
    case schemaBehind(found: Int, needed: Int)
    /// The gateway's role has not been given this device: its entries stay queued.
    case notAssigned(device: String, gateway: String)
    /// The server's TLS certificate was refused (or TLS could not be set up): `advice` says what to fix.
    case tls(server: String, detail: String, advice: String)
    /// An administration command was refused (bad name, missing gateway, existing role).
    case admin(String)
    /// libpq, PostgreSQL's client library, could not be opened (`detail`: the loader's message).
    case noClientLibrary(detail: String)

    /// What went wrong and what to do.
    public var description: String {
        switch self {
        case let .invalidURL(url):
            "\(url) is not a PostgreSQL URL: pass e.g. postgresql://user:password@host:5432/bracelet?sslmode=require "
                + "(or set $BRACELET_POSTGRES_URL)."
        case let .connection(server, detail):
            "cannot reach the fleet database \(server): \(detail). Check that the server runs and the URL's host, port, "
                + "user and password; sync keeps retrying."
        case let .server(state, message):
            "the fleet database refused a statement (SQLSTATE \(state)): \(message)" + FleetError.advice(state)
        case let .schemaNewer(found, supported):
            "the fleet database has schema version \(found), newer than this build's \(supported): update bracelet on this host."
        case let .noFleetTables(server):
            "\(server) holds no fleet tables yet: deliver summaries first with `bracelet sync --db D --postgres URL` (or check the URL's database)."
        case let .badRow(detail):
            "a row of the fleet database cannot be read: \(detail). It was not written by bracelet's fleet sink; remove or fix it."
        case let .schemaBehind(found, needed):
            "the fleet database has schema version \(found) and this build needs \(needed): the database owner upgrades it with "
                + "`bracelet fleet migrate --postgres OWNER_URL` (gateway and reader roles may not change the schema)."
        case let .notAssigned(device, gateway):
            "device \(device) is not assigned to gateway \(gateway) in the fleet database, which refuses its rows; its entries stay "
                + "queued. The fleet operator assigns it with `bracelet fleet assign \(device) --gateway \(gateway) --postgres OWNER_URL`."
        case let .tls(server, detail, advice):
            "TLS to the fleet database \(server) failed: \(advice) (libpq: \(detail))"
        case let .admin(message):
            message
        case let .noClientLibrary(detail):
            "PostgreSQL's client library cannot be loaded (\(detail)): install the libpq5 package (Debian, Ubuntu) and run the command again."
        }
    }

    /// Whether waiting and trying again may help: a lost or refused connection, a server shutting
    /// down or starting up, a serialization failure or deadlock, a full disk or too many connections,
    /// a statement cancelled by `statement_timeout` or an administrator, a lock or session timeout.
    public var isTransient: Bool {
        switch self {
        case .connection: true
        case let .server(state, _): FleetError.transientStates.contains(state) || FleetError.transientClasses.contains(String(state.prefix(2)))
        case .invalidURL, .schemaNewer, .badRow, .noFleetTables, .schemaBehind, .notAssigned, .tls, .admin, .noClientLibrary: false
        }
    }

    /// SQLSTATE classes whose every code is about the server's or the connection's state, not the
    /// statement: 08 connection exception, 53 insufficient resources (disk full, out of memory, too
    /// many connections), 58 system error (an I/O error on the server).
    static let transientClasses: Set<String> = ["08", "53", "58"]

    /// Single SQLSTATEs that are transient in classes that are not: the statement was sound, the
    /// moment was not. 57014 query_canceled is what `statement_timeout` raises (a slow or locked
    /// table); 57P01-57P03 and 57P05 are an administrator's shutdown, a crash shutdown, "cannot
    /// connect now" and an idle-session timeout (57P04, database dropped, is not: it is a setup to
    /// fix); 40001 and 40P01 serialization failure and deadlock; 40003 statement completion unknown;
    /// 55P03 lock not available (`lock_timeout`); 55006 object in use; 25P03 idle-in-transaction
    /// timeout.
    static let transientStates: Set<String> = ["57014", "57P01", "57P02", "57P03", "57P05", "40001", "40P01", "40003", "55P03", "55006", "25P03"]

    /// Whether the sink as configured cannot work until someone changes the setup: bad login,
    /// missing privilege or database, an unknown schema.
    public var isConfiguration: Bool {
        switch self {
        case .invalidURL, .schemaNewer, .schemaBehind, .notAssigned, .tls, .admin, .noClientLibrary: true
        case let .server(state, _): state.hasPrefix("28") || state.hasPrefix("3D") || state.hasPrefix("42") || state == "57P04"
        case .connection, .badRow, .noFleetTables: false
        }
    }

    private static func advice(_ state: String) -> String {
        if state.hasPrefix("28") { return ". Check the user and password in the URL." }
        if state == "42501" {
            return ". This role lacks the privilege: gateway roles write only their assigned devices' rows and readers only read; "
                + "schema changes are the owner's (`bracelet fleet migrate`), role changes need an owner with CREATEROLE."
        }
        if state.hasPrefix("3D") || state == "57P04" { return ". Create the database or fix its name in the URL." }
        if state == "57014" {
            return ". The statement ran longer than the server's statement_timeout (sync --timeout) or was cancelled; "
                + "sync retries it. If it recurs, look for a lock held on the fleet tables or raise the timeout."
        }
        if FleetError.transientStates.contains(state) || FleetError.transientClasses.contains(String(state.prefix(2))) {
            return "; sync retries it."
        }
        return ""
    }
}
