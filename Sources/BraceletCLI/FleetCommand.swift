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

/// The fleet server of `--postgres` or `$BRACELET_POSTGRES_URL`, checked; a password given on the
/// command line (`fromCommandLine`) is warned about, since any user of the host can read it.
func fleetServer(_ option: String?, fromCommandLine: Bool = true) throws -> FleetServer {
    guard let uri = option ?? ProcessInfo.processInfo.environment["BRACELET_POSTGRES_URL"], !uri.isEmpty else {
        throw CLIError("give the fleet database with --postgres URL or $BRACELET_POSTGRES_URL")
    }
    // The URL from the variable or a file is no command-line argument: checked here like one.
    do { try OperatorText.check(uri, what: option == nil ? "$BRACELET_POSTGRES_URL" : "the fleet database URL") } catch {
        throw CLIError(error.description, exitCode: 64)
    }
    let server: FleetServer
    do { server = try FleetServer(uri: uri) } catch { throw CLIError("\(error)") }
    if option != nil && fromCommandLine && server.hasPassword {
        Log.warning("warning: the password in --postgres is visible to every user of this host (ps, /proc): "
            + "give the URL in $BRACELET_POSTGRES_URL or --postgres-file, or the password in a libpq passfile")
    }
    return server
}

/// A reader of the fleet database, with a clear message when it cannot be reached.
func fleetReader(_ option: String?) throws -> FleetReader {
    let server = try fleetServer(option)
    return try fleetCall { try FleetReader(server: server) }
}

/// Runs a fleet call, turning its error into the CLI's.
func fleetCall<T>(_ body: () throws -> T) throws -> T {
    do { return try body() } catch let error as FleetError { throw CLIError(error.description) }
}

extension SyncCommand {
    /// Delivers the outbox to the fleet database in batches (`--postgres`), with `sync`'s exit codes.
    func deliverToPostgres(_ uri: String, store: Store) async throws {
        let server = try fleetServer(uri, fromCommandLine: postgres != nil)
        let lock = try ForwarderLock(databasePath: db)
        defer { withExtendedLifetime(lock) {} }
        let sink = PostgresSink(server: server)
        let forwarder = FleetForwarder(store: store, sink: sink, policy: try RetryPolicy(baseDelaySeconds: baseDelay, maxDelaySeconds: maxDelay),
                                       filter: filter, onEvent: { event in
            // One line per batch outcome, not per entry: a backfill is tens of thousands.
            if case .delivered = event { return }
            SyncCommand.progress(event)
        })
        let before = try store.outboxStatus(filter: filter).counts
        Log.info("sync: \(before.pending) pending entries -> \(sink.name)")
        if follow {
            try await forwarder.follow(pollMilliseconds: SyncDuration.milliseconds(poll, option: "--poll", upTo: 86_400))
            return
        }
        let report = once ? try await forwarder.deliverDue() : try await forwarder.drain()
        try finish(report, store: store, sink: sink)
    }

    /// The fleet database URL when `--postgres` (or, with no other sink, `$BRACELET_POSTGRES_URL`) names one.
    /// The rule: an option on the command line wins over the environment, so `--webhook` or
    /// `--jsonl` (or `--status`, or managing the outbox) with the variable set uses the option, and
    /// ``postgresEnvironmentNote`` says the variable was not used.
    var postgresURL: String? {
        postgres ?? (webhook == nil && jsonl == nil && !status && !managing ? postgresEnvironment : nil)
    }

    /// `$BRACELET_POSTGRES_URL` when set and not empty.
    private var postgresEnvironment: String? {
        ProcessInfo.processInfo.environment["BRACELET_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The line printed when `$BRACELET_POSTGRES_URL` is set but another sink option chose the sink.
    var postgresEnvironmentNote: String? {
        guard postgres == nil, postgresEnvironment != nil, webhook != nil || jsonl != nil else { return nil }
        return "sync: $BRACELET_POSTGRES_URL is set but not used: --\(webhook != nil ? "webhook" : "jsonl") chooses the sink "
            + "(one sink per run; run sync again without it, or with --postgres, to deliver to the fleet database)"
    }
}

extension ScoreCommand {
    /// The days of `--device` or `--user` from the fleet database.
    func fleetDays(_ uri: String) throws -> (days: [DatedVitalityMetrics], source: String) {
        let reader = try fleetReader(uri)
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
    func fleetDocument(_ uri: String) throws -> SummaryDocument {
        guard let device else { throw CLIError("with --postgres, name the bracelet: --device SERIAL") }
        let reader = try fleetReader(uri)
        let configuration = try person.configuration(recordedOffsetSeconds: nil)
        let subject = FleetReader.Subject.device(device)
        let days = try fleetCall { try reader.days(of: subject, fromDate: day ?? "0001-01-01", toDate: day ?? "9999-12-31") }
        let sessions = try fleetCall { try reader.sleepSessions(of: subject, fromDate: day ?? "0001-01-01", toDate: day ?? "9999-12-31") }
        if let day, days.isEmpty { throw CLIError("no data on \(day) for \(subject) in the fleet database", exitCode: 2) }
        return SummaryDocument(timeZone: SummaryConfiguration.name(of: configuration.timeZone), days: days, sleepSessions: sessions)
    }
}
