import ArgumentParser
import BraceletProtocol
import BraceletDecoder
import BraceletFleet
import BraceletStore
import BraceletSummaries
import BraceletSync
import BraceletVitality
import Foundation

/// `bracelet fleet`: the fleet database on PostgreSQL that many gateways deliver into.
struct FleetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fleet",
        abstract: "The fleet database on PostgreSQL: what every gateway delivered.",
        discussion: """
            Gateways deliver with `bracelet sync --db D --postgres URL`; `score --postgres` and \
            `summarize --postgres` read the delivered summaries. The URL may also come from \
            $BRACELET_POSTGRES_URL; its password is never printed.
            """,
        subcommands: [FleetStatusCommand.self, FleetScoreCommand.self, FleetMigrateCommand.self, FleetAddGatewayCommand.self,
                      FleetAddReaderCommand.self, FleetAddScorerCommand.self, FleetAssignCommand.self]
    )
}

/// `bracelet fleet status`: per device the last delivered day, the oldest gap and the last sync.
struct FleetStatusCommand: ParsableCommand, LoggingCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "List every device in the fleet database: participant, last delivered day, oldest gap, last sync time.",
        discussion: """
            The oldest gap is the first local date without a day summary between a device's first \
            and last delivered day ("-" when there is none). Last sync is when a gateway last \
            delivered for the device (UTC).
            """
    )

    @OptionGroup var database: FleetDatabaseOptions

    @Option(name: .long, help: "Output format: table or json.")
    var format: SyncCommand.StatusFormat = .table

    @OptionGroup var log: LogOptions

    func run() throws {
        let server = try database.server()
        let reader = try fleetCall { try FleetReader(server: server) }
        let devices = try fleetCall { try reader.status() }
        if format == .json {
            print(String(decoding: CanonicalJSON.prettyPrinted(try CanonicalJSON.bytes(of: devices, what: "the fleet status")), as: UTF8.self))
            return
        }
        print("device\tuser\tdays\tsleep_sessions\tlast_day\toldest_gap\tlast_sync")
        for device in devices {
            print([device.device, device.user ?? "-", String(device.days), String(device.sleepSessions), device.lastDay ?? "-",
                   device.oldestGap ?? "-", device.lastSync].joined(separator: "\t"))
        }
    }
}

/// The fleet server of `--postgres`, `--postgres-file`, `$BRACELET_POSTGRES_URL` or the systemd
/// credential `postgres-url`, checked: the one check of every command that takes the URL. A
/// password in `--postgres` is refused before anything connects, by every such command alike: any
/// user of the host reads a command line (ps, /proc), and a command that only warned had already
/// shown it to them.
func fleetServer(_ option: String?, file: String? = nil) throws -> FleetServer {
    guard let (uri, origin) = try postgresURL(option: option, file: file).map({ ($0.uri, $0.origin) }) else {
        throw CLIError("give the fleet database with --postgres-file FILE, $BRACELET_POSTGRES_URL or the systemd credential "
            + "postgres-url (or --postgres URL)")
    }
    // The URL from the variable or a file is no command-line argument: checked here like one.
    do { try OperatorText.check(uri, what: option == nil ? "$BRACELET_POSTGRES_URL" : "the fleet database URL") } catch {
        throw CLIError(error.description, exitCode: 64)
    }
    let server: FleetServer
    do { server = try FleetServer(uri: uri) } catch { throw CLIError("\(error)") }
    if origin == .option && server.hasPassword {
        throw CLIError("the password in --postgres is visible to every user of this host (ps, /proc): give the URL in "
            + "$BRACELET_POSTGRES_URL or --postgres-file FILE (mode 0600), or the password in a libpq passfile (~/.pgpass)", exitCode: 64)
    }
    return server
}

/// The fleet database URL of `--postgres` or `--postgres-file`, else of the environment or the
/// systemd credential (``SinkSecrets``), with where it came from; `nil` when none gives one.
func postgresURL(option: String?, file: String?) throws -> (uri: String, origin: SinkSecrets.Origin)? {
    if option != nil && file != nil { throw ValidationError("give --postgres or --postgres-file, not both") }
    if let option, !option.isEmpty { return (option, .option) }
    if let file { return (try SinkSecrets.privateFirstLine(file, option: "--postgres-file", what: "a password"), .file(file)) }
    return try SinkSecrets.fromEnvironmentWithOrigin(variable: SinkSecrets.postgresURLVariable, credential: SinkSecrets.postgresURLCredential)
        .map { ($0.value, $0.origin) }
}

/// A reader of the fleet database, with a clear message when it cannot be reached.
func fleetReader(_ option: String?, file: String? = nil) throws -> FleetReader {
    let server = try fleetServer(option, file: file)
    return try fleetCall { try FleetReader(server: server) }
}

/// Runs a fleet call, turning its error into the CLI's.
func fleetCall<T>(_ body: () throws -> T) throws -> T {
    do { return try body() } catch let error as FleetError { throw CLIError(error.description) }
}

extension SyncCommand {
    /// Delivers the outbox to the fleet database in batches (`--postgres`), with `sync`'s exit codes.
    func deliverToPostgres(store: Store) async throws {
        let server = try fleetServer(postgres, file: postgresFile)
        let lock = try ForwarderLock(databasePath: db)
        defer { withExtendedLifetime(lock) {} }
        let sink = PostgresSink(server: server, timeouts: FleetTimeouts(statementSeconds: timeout.map { Int($0.rounded(.up)) } ?? 30))
        let forwarder = FleetForwarder(store: store, sink: sink, policy: try RetryPolicy(baseDelaySeconds: baseDelay, maxDelaySeconds: maxDelay),
                                       filter: filter, onEvent: { event in
            // One line per batch outcome, not per entry: a backfill is tens of thousands.
            if case .delivered = event { return }
            SyncCommand.progress(event)
        })
        let before = try store.outboxStatus(filter: filter).counts
        Log.info("sync: \(before.pending) pending entries -> \(sink.name)")
        if follow {
            let pollMilliseconds = try SyncDuration.milliseconds(poll, option: "--poll", upTo: 86_400)
            return try await followUntilStopped(store: store) { try await forwarder.follow(pollMilliseconds: pollMilliseconds) }
        }
        let report = once ? try await forwarder.deliverDue() : try await forwarder.drain()
        try finish(report, store: store, sink: sink)
    }

    /// The fleet database URL when `--postgres` or `--postgres-file` names one, or, with no other
    /// sink, `$BRACELET_POSTGRES_URL` or the systemd credential `postgres-url`. The rule: an option
    /// on the command line wins over the environment, so `--webhook` or `--jsonl` (or `--status`,
    /// or managing the outbox) with the variable set uses the option, and
    /// ``postgresEnvironmentNote`` says the variable was not used.
    func chosenPostgresURL() throws -> String? {
        if postgres != nil || postgresFile != nil { return try postgresURL(option: postgres, file: postgresFile)?.uri }
        guard webhook == nil && jsonl == nil && !status && !managing else { return nil }
        return try postgresURL(option: nil, file: nil)?.uri
    }

    /// The line printed when the environment or a credential names a fleet database but another
    /// sink option chose the sink.
    var postgresEnvironmentNote: String? {
        guard postgres == nil, postgresFile == nil, webhook != nil || jsonl != nil,
              let origin = (try? postgresURL(option: nil, file: nil))?.origin else { return nil }
        return "sync: \(origin.description) names a fleet database but is not used: --\(webhook != nil ? "webhook" : "jsonl") chooses the sink "
            + "(one sink per run; run sync again without it, or with --postgres-file, to deliver to the fleet database)"
    }
}

extension ScoreCommand {
    /// The days of `--device` or `--user` from the fleet database.
    func fleetDays() throws -> (days: [DatedVitalityMetrics], source: String) {
        let reader = try fleetReader(postgres, file: postgresFile)
        guard let subject: FleetReader.Subject = user.map({ .user($0) }) ?? device.map({ .device($0) }) else {
            throw CLIError("with --postgres, name whose days to score: --device SERIAL or --user ID")
        }
        let days = try fleetCall { try reader.vitalityDays(of: subject, age: requiredAge()) }
        guard !days.isEmpty else { throw CLIError("the fleet database holds no day summaries for \(subject)", exitCode: 2) }
        return (days, "postgres \(subject)")
    }
}

extension SummarizeCommand {
    /// The delivered summaries of `--device` (on `--day`), as the gateway's `summarize --db` shows them.
    func fleetDocument() throws -> SummaryDocument {
        guard let device else { throw CLIError("with --postgres, name the bracelet: --device SERIAL") }
        let reader = try fleetReader(postgres, file: postgresFile)
        let configuration = try person.configuration(recordedOffsetSeconds: nil)
        let subject = FleetReader.Subject.device(device)
        let days = try fleetCall { try reader.days(of: subject, fromDate: day ?? "0001-01-01", toDate: day ?? "9999-12-31") }
        let sessions = try fleetCall { try reader.sleepSessions(of: subject, fromDate: day ?? "0001-01-01", toDate: day ?? "9999-12-31") }
        if let day, days.isEmpty { throw CLIError("no data on \(day) for \(subject) in the fleet database", exitCode: 2) }
        return SummaryDocument(timeZone: SummaryConfiguration.name(of: configuration.timeZone), days: days, sleepSessions: sessions)
    }
}
