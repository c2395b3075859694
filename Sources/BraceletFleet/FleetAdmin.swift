import Foundation

/// The fleet operator's side of the fleet database, run with the owner's URL: the schema, one login
/// role per gateway and per reader, and which gateway each device belongs to.
///
/// The server enforces the rest (``FleetSchema/rolesMigration``): a gateway's role writes and reads
/// only the rows of its assigned devices, a reader's only reads, neither changes the schema.
public final class FleetAdmin {
    let connection: PGConnection

    /// Connects as the owner.
    ///
    /// - Throws: ``FleetError`` (cannot connect, login refused).
    public init(server: FleetServer) throws {
        connection = try PGConnection(server: server)
    }

    /// A new login role's name and password, shown once (the server keeps only a SCRAM verifier).
    public struct Credentials: Sendable, Equatable, Codable {
        /// The login role (the user of the URL).
        public var role: String
        /// Its password.
        public var password: String
    }

    /// Creates or upgrades the schema; returns the versions before and after.
    ///
    /// - Throws: ``FleetError/admin(_:)`` when this role may not (not the owner, or no CREATEROLE
    ///   for the group roles), ``FleetError/schemaNewer(found:supported:)``.
    public func migrate() throws -> (before: Int, after: Int) {
        let before = try FleetSchema.version(connection) ?? 0
        do { try FleetSchema.migrateLocked(connection) } catch let FleetError.server(state, message) where state == "42501" {
            throw FleetError.admin("the URL's role may not migrate the fleet schema (\(message)): run `bracelet fleet migrate` with the "
                + "database owner's URL; the owner needs CREATEROLE once, for the group roles (ALTER ROLE owner CREATEROLE as a superuser).")
        }
        return (before, FleetSchema.latestVersion)
    }

    /// Creates the login role `name` for one gateway, with a new random password.
    public func addGateway(_ name: String) throws -> Credentials {
        try addRole(name, group: FleetSchema.gatewayGroup, registering: true)
    }

    /// Creates the read-only login role `name` (for `score`, `summarize` and `fleet status`).
    public func addReader(_ name: String) throws -> Credentials {
        try addRole(name, group: FleetSchema.readerGroup, registering: false)
    }

    /// Creates the login role `name` for `fleet score`: it reads every device's days and writes
    /// the scores, nothing else.
    public func addScorer(_ name: String) throws -> Credentials {
        try addRole(name, group: FleetSchema.scorerGroup, registering: false)
    }

    /// Gives `device` to `gateway` (moving it from the gateway it had); returns that previous gateway.
    public func assign(device: String, gateway: String) throws -> String? {
        try requireCurrentSchema()
        guard !device.isEmpty, device.utf8.count <= 64 else { throw FleetError.admin("a device serial is 1 to 64 characters; got \"\(device)\"") }
        return try inTransaction {
            let known = try connection.execute("SELECT 1 FROM fleet_gateways WHERE name = $1", [gateway]).values
            guard !known.isEmpty else {
                throw FleetError.admin("no gateway \(gateway) in the fleet database: add it first with `bracelet fleet add-gateway \(gateway)`")
            }
            let previous = try connection.execute("SELECT gateway FROM fleet_assignments WHERE device = $1 FOR UPDATE", [device]).values.first?.first ?? nil
            try connection.execute("""
                INSERT INTO fleet_assignments (device, gateway) VALUES ($1, $2)
                ON CONFLICT (device) DO UPDATE SET gateway = excluded.gateway, assigned_at = now()
                """, [device, gateway])
            return previous
        }
    }

    /// A role name PostgreSQL takes without quoting and that cannot be mistaken for a system or group role.
    static func checkRoleName(_ name: String) throws {
        let valid = name.utf8.count <= 63 && name.first.map { $0 == "_" || ("a"..."z").contains($0) } == true
            && name.allSatisfy { $0 == "_" || ("a"..."z").contains($0) || ("0"..."9").contains($0) }
        guard valid else {
            throw FleetError.admin("\"\(name)\" is not a usable role name: use 1 to 63 lowercase letters, digits and _, starting with a letter or _ (e.g. gw_ward3)")
        }
        guard !name.hasPrefix("pg_"), ![FleetSchema.gatewayGroup, FleetSchema.readerGroup, FleetSchema.scorerGroup, "postgres", "public"].contains(name) else {
            throw FleetError.admin("\(name) is reserved (a system or group role): choose another name")
        }
    }

    private func addRole(_ name: String, group: String, registering: Bool) throws -> Credentials {
        try Self.checkRoleName(name)
        try requireCurrentSchema()
        let password = Self.newPassword()
        let verifier = try connection.scramVerifier(password: password, role: name)
        try inTransaction {
            do {
                try connection.execute("CREATE ROLE \(try connection.identifier(name)) LOGIN PASSWORD \(try connection.literal(verifier)) IN ROLE \(group)")
            } catch let FleetError.server(state, _) where state == "42710" {
                throw FleetError.admin("a role \(name) exists already on this server: choose another name (a role's password is shown only when it is made)")
            } catch let FleetError.server(state, message) where state == "42501" {
                throw FleetError.admin("the URL's role may not create roles (\(message)): use the database owner's URL; it needs CREATEROLE")
            }
            if registering { try connection.execute("INSERT INTO fleet_gateways (name) VALUES ($1)", [name]) }
        }
        return Credentials(role: name, password: password)
    }

    private func requireCurrentSchema() throws {
        let version = try FleetSchema.version(connection) ?? 0
        if version < FleetSchema.latestVersion { throw FleetError.schemaBehind(found: version, needed: FleetSchema.latestVersion) }
        if version > FleetSchema.latestVersion { throw FleetError.schemaNewer(found: version, supported: FleetSchema.latestVersion) }
    }

    private func inTransaction<T>(_ body: () throws -> T) throws -> T {
        try connection.execute("BEGIN")
        do {
            let result = try body()
            try connection.execute("COMMIT")
            return result
        } catch {
            if connection.isOpen { _ = try? connection.execute("ROLLBACK") }
            throw error
        }
    }

    /// 32 characters of base64url from 24 random bytes (192 bits): safe in a URL without escaping.
    static func newPassword() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<24).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
    }
}
