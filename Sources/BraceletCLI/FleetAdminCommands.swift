import ArgumentParser
import BraceletDecoder
import BraceletFleet
import Foundation

/// Where an administration or status command finds the fleet database: `--postgres URL`,
/// `--postgres-file PATH` (mode 0600, the URL on its first line), `$BRACELET_POSTGRES_URL` or the
/// systemd credential `postgres-url`. A password may also come from libpq's passfile (`~/.pgpass`
/// or `passfile=` in the URL).
struct FleetDatabaseOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The fleet database URL (default: $BRACELET_POSTGRES_URL). Every user reads it in ps, so one with a password is refused: give that in the variable or --postgres-file.",
        valueName: "url"))
    var postgres: String?

    @Option(name: .long, help: ArgumentHelp("Read the fleet database URL from this file (mode 0600 or stricter).", valueName: "path"))
    var postgresFile: String?

    /// The server named by the options or the environment, checked.
    func server() throws -> FleetServer {
        try fleetServer(postgres, file: postgresFile)
    }
}

/// `bracelet fleet migrate`: create or upgrade the fleet schema, as the database owner.
struct FleetMigrateCommand: ParsableCommand, LoggingCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Create or upgrade the fleet schema, its group roles and row-level security (the database owner's URL).",
        discussion: "Only the owner changes the schema; gateway and reader roles cannot. The owner needs CREATEROLE for the group roles."
    )

    @OptionGroup var log: LogOptions

    @OptionGroup var database: FleetDatabaseOptions

    func run() throws {
        let admin = try fleetCall { try FleetAdmin(server: try database.server()) }
        let (before, after) = try fleetCall { try admin.migrate() }
        print(before == after ? "fleet schema: version \(after), up to date" : "fleet schema: version \(before) -> \(after)")
    }
}

/// `bracelet fleet add-gateway NAME`: a login role for one gateway.
struct FleetAddGatewayCommand: ParsableCommand, LoggingCommand {
    static let configuration = CommandConfiguration(
        commandName: "add-gateway",
        abstract: "Create the login role of one gateway and print its password once (the server keeps only a SCRAM verifier).",
        discussion: """
            The role inserts, updates and reads only the rows of devices assigned to it (`bracelet fleet assign`). \
            Put the password on the gateway in a 0600 file or its environment, never in a command line.
            """
    )

    @OptionGroup var log: LogOptions

    @OptionGroup var role: NewRoleOptions

    func run() throws { try role.create(kind: "gateway") { try $0.addGateway($1) } }
}

/// `bracelet fleet add-reader NAME`: a read-only login role.
struct FleetAddReaderCommand: ParsableCommand, LoggingCommand {
    static let configuration = CommandConfiguration(
        commandName: "add-reader",
        abstract: "Create a read-only login role (for score, summarize and fleet status) and print its password once."
    )

    @OptionGroup var log: LogOptions

    @OptionGroup var role: NewRoleOptions

    func run() throws { try role.create(kind: "reader") { try $0.addReader($1) } }
}

/// `bracelet fleet add-scorer NAME`: a login role for `fleet score`.
struct FleetAddScorerCommand: ParsableCommand, LoggingCommand {
    static let configuration = CommandConfiguration(
        commandName: "add-scorer",
        abstract: "Create the login role that runs `fleet score` (reads every device's days, writes fleet_scores) and print its password once."
    )

    @OptionGroup var log: LogOptions

    @OptionGroup var role: NewRoleOptions

    func run() throws { try role.create(kind: "scorer") { try $0.addScorer($1) } }
}

/// The name, output format and database of a new login role.
struct NewRoleOptions: ParsableArguments {
    @Argument(help: "The role name (lowercase letters, digits, _; e.g. gw_ward3).")
    var name: String

    @Flag(name: .long, help: "Print {\"password\":..., \"role\":...} as JSON.")
    var json = false

    @OptionGroup var database: FleetDatabaseOptions

    /// Makes the role with `make` and prints its credentials on standard output (never on stderr or in a log).
    func create(kind: String, _ make: (FleetAdmin, String) throws -> FleetAdmin.Credentials) throws {
        let admin = try fleetCall { try FleetAdmin(server: try database.server()) }
        let credentials = try fleetCall { try make(admin, name) }
        if json {
            // Escaped as every JSON we print is: the scripts read it with a JSON parser.
            print(String(decoding: try CanonicalJSON.bytes(of: credentials, what: "the credentials"), as: UTF8.self))
            return
        }
        print("role: \(credentials.role)\npassword: \(credentials.password)")
        Log.warning("fleet: the \(kind)'s password is shown only now; store it in a 0600 file (e.g. a libpq passfile) on the \(kind)")
    }
}

/// `bracelet fleet assign SERIAL --gateway NAME`: the only way a device moves between gateways.
struct FleetAssignCommand: ParsableCommand, LoggingCommand {
    static let configuration = CommandConfiguration(
        commandName: "assign",
        abstract: "Give a device to a gateway: from then on only that gateway writes and reads its rows.",
        discussion: "A device moves only by this command; its rows already delivered move with it."
    )

    @OptionGroup var log: LogOptions

    @Argument(help: "The bracelet serial.")
    var device: String

    @Option(name: .long, help: ArgumentHelp("The gateway (its role name, from add-gateway).", valueName: "name"))
    var gateway: String

    @OptionGroup var database: FleetDatabaseOptions

    func run() throws {
        let admin = try fleetCall { try FleetAdmin(server: try database.server()) }
        let previous = try fleetCall { try admin.assign(device: device, gateway: gateway) }
        switch previous {
        case nil: print("\(device): assigned to \(gateway)")
        case gateway?: print("\(device): already assigned to \(gateway)")
        case let other?: print("\(device): moved from \(other) to \(gateway)")
        }
    }
}
