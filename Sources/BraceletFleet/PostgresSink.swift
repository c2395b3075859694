import BraceletStore
import BraceletSync
import Foundation

/// Delivers outbox entries into the fleet database on a PostgreSQL server, many per transaction.
///
/// Each summary is upserted by its natural key (device, kind, local date; for a sleep session
/// device and start; an operator event by its occurrence, the outbox key, written once) and only
/// when its version is newer than the stored one: an entry sent again
/// changes nothing and is reported `already_had`, and an older version arriving late never
/// overwrites a newer one. So delivery order does not matter, and any number of gateways may write
/// at once. A batch is one transaction: all of it is stored or none.
///
/// A lost connection, a server restart or failover, too many connections or a full disk are
/// transient (the forwarder retries with backoff; nothing becomes a dead letter); a refused login,
/// a missing privilege or a newer schema pause the sink; only an entry the sink cannot read (not
/// a summary or operator event envelope) is refused for good. The connection (and the schema migration) is made on
/// first use and again after it broke.
///
/// Every wait is bounded (``FleetTimeouts``): a server that takes the login and then never answers
/// costs one statement timeout plus a grace, and the batch is retried. Forwarders call the async
/// ``send(batch:)``, which runs the blocking work on the sink's own thread and returns at once when
/// the calling task is cancelled (a stopping gateway), giving that connection up.
public final class PostgresSink: OutboxSink, @unchecked Sendable {
    /// The server (its description hides the password).
    public let server: FleetServer
    /// How long statements may take.
    public let timeouts: FleetTimeouts
    /// Held for each call on the connection: a delivery's batch or a status report.
    let lock = NSLock()
    private var connection: PGConnection?
    /// The interrupt of the call under way (under ``lock``).
    private var callInterrupt: WaitInterrupt?
    /// Where the blocking work of ``send(batch:)`` runs.
    private let worker = DispatchQueue(label: "bracelet.fleet.sink")

    /// Rows per INSERT statement: 10 parameters a row stays far below PostgreSQL's 65,535.
    static let rowsPerStatement = 1_000
    /// Payload bytes per INSERT statement (about): libpq builds each statement in memory.
    static let bytesPerStatement = 16 << 20

    /// A sink writing to `server`; nothing is connected until the first delivery.
    public init(server: FleetServer, timeouts: FleetTimeouts = FleetTimeouts()) {
        self.server = server
        self.timeouts = timeouts
    }

    /// `postgres <URL without password>`.
    public var name: String { "postgres \(server)" }

    /// Delivers one entry (a batch of one).
    public func deliver(_ entry: OutboxEntry) async throws -> DeliveryOutcome {
        try await send(batch: [entry])[0]
    }

    /// Delivers `entries` in one transaction on the sink's thread and returns one outcome per entry,
    /// in order; throws `CancellationError` as soon as the calling task is cancelled.
    public func send(batch entries: [OutboxEntry]) async throws -> [DeliveryOutcome] {
        try await onWorker { interrupt in self.deliver(batch: entries, interrupt: interrupt) }
    }

    /// The devices among `devices` the fleet database would refuse from this sink's role (not
    /// assigned to it), so a forwarder sends the others first; asked on the sink's thread.
    ///
    /// - Throws: ``FleetError`` when the server cannot be asked (then a batch would fail the same
    ///   way), `CancellationError` when the calling task is cancelled.
    public func refusedDevices(among devices: Set<String>) async throws -> Set<String> {
        try await onWorker { interrupt in
            try self.lock.withLock { Set(try self.unassigned(among: devices, interrupt: interrupt).keys) }
        }
    }

    /// Runs `work` on ``worker`` with a fresh interrupt and suspends until it returns, or until the
    /// calling task is cancelled: then the interrupt ends the wait under way and this returns at
    /// once, leaving the worker to finish (a connect under way ends by its own timeout).
    func onWorker<T: Sendable>(_ work: @escaping @Sendable (WaitInterrupt) throws -> T) async throws -> T {
        let interrupt = WaitInterrupt()
        let result = FirstResult<Result<T, any Error>>()
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                result.wait(with: continuation)
                worker.async {
                    defer { interrupt.close() }
                    guard !interrupt.isFired else { return }
                    result.give(Result { try work(interrupt) })
                }
            }
        } onCancel: {
            // The cancellation is given before the interrupt wakes the worker: woken first, the
            // worker could give its interrupted work's outcome (a failure to retry) in its place.
            _ = result.give(.failure(CancellationError()))
            interrupt.fire()
        }
        return try outcome.get()
    }

    /// Delivers `entries` in one transaction and returns one outcome per entry, in order.
    /// Blocks the calling thread on the network (each wait bounded).
    public func deliver(batch entries: [OutboxEntry]) -> [DeliveryOutcome] {
        deliver(batch: entries, interrupt: nil)
    }

    private func deliver(batch entries: [OutboxEntry], interrupt: WaitInterrupt?) -> [DeliveryOutcome] {
        var outcomes = [DeliveryOutcome?](repeating: nil, count: entries.count)
        var rows: [FleetRow] = []
        for (index, entry) in entries.enumerated() {
            do { rows.append(try FleetRow(entry: entry, index: index)) } catch {
                outcomes[index] = .permanentFailure(reason: "\(error)", httpStatus: nil)
            }
        }
        if !rows.isEmpty {
            let written = lock.withLock { () -> (FleetRow) -> DeliveryOutcome in
                let refused: [String: FleetError]
                do { refused = try unassigned(among: Set(rows.map(\.entry.device)), interrupt: interrupt) } catch {
                    let outcome = PostgresSink.outcome(of: error as? FleetError ?? .connection(server: server.description, detail: "\(error)"))
                    return { _ in outcome }
                }
                let allowed = rows.filter { refused[$0.entry.device] == nil }
                let stored = allowed.isEmpty ? { _ in .transientFailure(reason: "not attempted", httpStatus: nil) } : write(allowed)
                return { row in refused[row.entry.device].map(PostgresSink.outcome(of:)) ?? stored(row) }
            }
            for row in rows { outcomes[row.index] = written(row) }
        }
        return outcomes.map { $0 ?? .transientFailure(reason: "not attempted", httpStatus: nil) }
    }

    /// Writes `rows` in one transaction; returns each row's outcome. A statement the server refuses
    /// for one row's data is retried row by row, so one bad entry does not hold back the others.
    private func write(_ rows: [FleetRow]) -> (FleetRow) -> DeliveryOutcome {
        do {
            let stored = try transaction(rows)
            return { stored.contains($0.entry.key) ? .delivered(httpStatus: nil) : .alreadyHad(httpStatus: nil) }
        } catch let error as FleetError {
            if error.isTransient || error.isConfiguration || rows.count == 1 {
                let outcome = PostgresSink.outcome(of: error)
                return { _ in outcome }
            }
            var single: [String: DeliveryOutcome] = [:]
            for row in rows { single[row.entry.key] = write([row])(row) }
            return { single[$0.entry.key] ?? PostgresSink.outcome(of: error) }
        } catch {
            let outcome = DeliveryOutcome.transientFailure(reason: "\(error)", httpStatus: nil)
            return { _ in outcome }
        }
    }

    /// The outcome a failed batch has for its entries.
    static func outcome(of error: FleetError) -> DeliveryOutcome {
        if error.isTransient { return .transientFailure(reason: error.description, httpStatus: nil) }
        if error.isConfiguration { return .configurationFailure(reason: error.description, httpStatus: nil) }
        return .permanentFailure(reason: error.description, httpStatus: nil)
    }

    /// Upserts `rows` in one transaction and returns the outbox keys that changed the server.
    private func transaction(_ rows: [FleetRow]) throws -> Set<String> {
        try inTransaction { connection in
            // Newest version per natural key only: one statement may not update a row twice. The
            // older versions in the batch are superseded, which is what the server would end with.
            var newest: [String: FleetRow] = [:]
            for row in rows where (newest[row.naturalKey]?.entry.version ?? 0) < row.entry.version { newest[row.naturalKey] = row }
            // Sorted keys: two gateways writing the same rows lock them in the same order (no deadlock).
            let ordered = newest.values.sorted { $0.naturalKey < $1.naturalKey }
            var stored = Set<String>()
            let statements: [(rows: [FleetRow], sql: (Int) -> String, parameters: (FleetRow) -> [String?])] = [
                (ordered.filter { $0.session == nil && !$0.isEvent }, FleetRow.dailyUpsert, \.dailyParameters),
                (ordered.filter { $0.session != nil }, FleetRow.sleepUpsert, \.sleepParameters),
                (ordered.filter(\.isEvent), FleetRow.eventInsert, \.eventParameters),
            ]
            for statement in statements {
                for chunk in FleetRow.chunks(statement.rows, of: Self.rowsPerStatement, bytes: Self.bytesPerStatement) {
                    let written = try connection.execute(statement.sql(chunk.count), chunk.flatMap(statement.parameters))
                    stored.formUnion(written.values.compactMap { $0.first ?? nil })
                }
            }
            var devices: [String: String?] = [:]
            for row in rows where row.entry.user != nil || devices[row.entry.device] == nil {
                devices[row.entry.device] = .some(row.entry.user)
            }
            let deviceList = devices.sorted { $0.key < $1.key }
            try connection.execute(FleetRow.deviceUpsert(rows: deviceList.count), deviceList.flatMap { [$0.key, $0.value] })
            // Superseded versions in this batch count as stored with the newest.
            return Set(rows.filter { stored.contains(newest[$0.naturalKey]?.entry.key ?? "") }.map(\.entry.key))
        }
    }

    /// Runs `body` in one transaction on the open connection: committed when it returns, rolled
    /// back when it throws (the connection given up when it broke or the failure was transient).
    func inTransaction<T>(_ body: (PGConnection) throws -> T) throws -> T {
        let connection = try connected()
        do {
            try connection.execute("BEGIN")
            let result = try body(connection)
            try connection.execute("COMMIT")
            return result
        } catch {
            if connection.isOpen { _ = try? connection.execute("ROLLBACK") } else { self.connection = nil }
            if let fleet = error as? FleetError, fleet.isTransient { self.connection = nil }
            throw error
        }
    }

    /// The devices among `devices` this sink's role has not been assigned, each with its refusal;
    /// empty for a role row-level security does not restrict (the owner). The server refuses their
    /// rows anyway: asking first gives each its own clear error and lets the other devices' rows go.
    func unassigned(among devices: Set<String>, interrupt: WaitInterrupt?) throws -> [String: FleetError] {
        callInterrupt = interrupt
        let connection = try connected()
        guard let gatewayRole else { return [:] }
        do {
            let assigned = Set(try connection.execute("SELECT device FROM fleet_assignments").values.compactMap { $0.first ?? nil })
            return Dictionary(uniqueKeysWithValues: devices.subtracting(assigned).map { ($0, FleetError.notAssigned(device: $0, gateway: gatewayRole)) })
        } catch {
            if !connection.isOpen || (error as? FleetError)?.isTransient == true { self.connection = nil }
            throw error
        }
    }

    /// The role of the connection when row-level security restricts it (a gateway's role), else `nil`.
    private var gatewayRole: String?

    /// The open connection, made (and the schema migrated, when this role may) when there is none or
    /// it broke; its waits end when `interrupt` fires.
    private func connected() throws -> PGConnection {
        if let connection, connection.isOpen {
            connection.interrupt = callInterrupt
            return connection
        }
        connection = nil
        let made = try PGConnection(server: server, timeouts: timeouts, interrupt: callInterrupt)
        try FleetSchema.migrate(made)
        let role = try made.execute("SELECT row_security_active('fleet_daily_summaries'), current_user::text").values.first
        gatewayRole = role?.first == "t" ? (role?[1] ?? "") : nil
        connection = made
        return made
    }
}
