import BraceletDecoder
import BraceletVitality
import Dispatch
import Synchronization

/// Scores every device of the fleet database in one process (`bracelet fleet score`), with the
/// rules and numbers of `score --postgres --device` for each, and keeps the scores in
/// `fleet_scores` for readers to query.
///
/// Devices are read in batches of bounded size (``FleetScoreBatches``), each batch's devices are
/// scored on every core while the connection reads the next batch and stores the one before, so
/// memory holds about three batches whatever the fleet's size. The whole run is one transaction at
/// one snapshot (REPEATABLE READ): its scores appear together when it commits, or not at all.
///
/// Runs as a scorer (``FleetAdmin/addScorer(_:)``: reads the days, writes the scores) or as the
/// owner; a reader or gateway is refused before anything is read.
public final class FleetScorer {
    let connection: PGConnection

    /// What a run did.
    public struct Summary: Sendable, Equatable {
        /// Devices in `fleet_devices`.
        public var devices = 0
        /// Devices with a score.
        public var scored = 0
        /// Rows written to `fleet_scores` (scores, and windows that lacked data).
        public var stored = 0
    }

    /// Weight of rows a batch holds at most (a day with its score input weighs 1: about 2 kB).
    public static let defaultBatchBudget = 4_000

    /// Connects, brings the schema up to date when this role is the owner, and checks that the
    /// role may write the scores.
    ///
    /// - Throws: ``FleetError`` (cannot connect, schema behind or newer, a role that may not score).
    public init(server: FleetServer) throws {
        connection = try PGConnection(server: server)
        try FleetSchema.migrate(connection)
        let rights = try connection.execute("""
            SELECT has_table_privilege('fleet_scores', 'INSERT') AND has_table_privilege('fleet_scores', 'UPDATE')
                AND has_table_privilege('fleet_daily_summaries', 'SELECT'), current_user::text
            """).values.first
        guard rights?.first == "t" else {
            throw FleetError.admin("role \(rights?.last.flatMap { $0 } ?? "?") may not write the scores (fleet_scores): run `fleet score` with a scorer's URL "
                + "(the owner makes one with `bracelet fleet add-scorer NAME`) or the owner's; readers only read the scores")
        }
    }

    /// Scores every device (in serial order) for the window `builder` describes at its age in `ages`, stores
    /// each device's result that has a window, and hands each result to `each` as its batch is stored.
    /// The scores are committed once every device is done.
    ///
    /// - Throws: ``FleetError`` (the server, or another `fleet score` running on this database), or
    ///   what `each` throws (the run is then rolled back).
    public func scoreAll(ages: FleetScoreAges, builder: VitalityWindowBuilder, batchBudget: Int = defaultBatchBudget,
                         each: (FleetScore) throws -> Void) throws -> Summary {
        // With a fixed end, only the window's days change the result: `score` drops the others.
        let (from, to) = builder.end.map { ($0.adding(days: -(builder.length - 1)).description, $0.description) } ?? ("0001-01-01", "9999-12-31")
        var summary = Summary()
        try connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
        do {
            // Every statement is a few index lookups; the listing's estimated cost would have the
            // server compile it to machine code each time (40 ms a page for nothing).
            try connection.execute("SET LOCAL jit = off")
            // Two runs at once would score the same rows twice and fail on each other's updates.
            guard try connection.execute("SELECT pg_try_advisory_xact_lock(7262022015)").values.first?.first == "t" else {
                throw FleetError.admin("another `fleet score` is running on this fleet database: wait until it ends, then run this one again")
            }
            var batches = FleetScoreBatches(connection: connection, fromDate: from, toDate: to, budget: batchBudget)
            var inFlight: ScoringJob?
            while let batch = try batches.next() {
                let job = ScoringJob(batch, ages: ages, builder: builder)
                if let previous = inFlight { try store(previous.results(), windowDays: builder.length, summary: &summary, each: each) }
                inFlight = job
            }
            if let previous = inFlight { try store(previous.results(), windowDays: builder.length, summary: &summary, each: each) }
            try connection.execute("COMMIT")
        } catch {
            if connection.isOpen { _ = try? connection.execute("ROLLBACK") }
            throw error
        }
        return summary
    }

    /// Upserts the results that have a window and hands every result to `each`.
    private func store(_ results: [FleetScore], windowDays: Int, summary: inout Summary, each: (FleetScore) throws -> Void) throws {
        let rows = results.filter { $0.window != nil }
        var start = 0
        while start < rows.count {
            let chunk = rows[start..<min(rows.count, start + Self.rowsPerStatement)]
            try connection.execute(Self.upsert(rows: chunk.count), try chunk.flatMap { try Self.parameters($0, windowDays: windowDays) })
            start += chunk.count
        }
        summary.devices += results.count
        summary.scored += results.count { $0.report != nil }
        summary.stored += rows.count
        for result in results { try each(result) }
    }

    /// Rows per INSERT: 13 parameters a row stays far below PostgreSQL's 65,535.
    static let rowsPerStatement = 1_000

    /// The upsert of scores: a window scored again replaces what it had.
    static func upsert(rows: Int) -> String {
        """
        INSERT INTO fleet_scores AS t (device, window_days, window_end, window_start, user_id, age, total, sleep, movement,
            stress_recovery, scores, warnings, error)
        VALUES \(FleetRow.values(rows: rows, casts: ["", "::integer", "::date", "::date", "", "::integer", "::float8", "::float8",
                                                    "::float8", "::float8", "::jsonb", "::jsonb", ""]))
        ON CONFLICT (device, window_days, window_end) DO UPDATE SET window_start = excluded.window_start, user_id = excluded.user_id,
            age = excluded.age, total = excluded.total, sleep = excluded.sleep, movement = excluded.movement,
            stress_recovery = excluded.stress_recovery, scores = excluded.scores, warnings = excluded.warnings,
            error = excluded.error, scored_at = now()
        """
    }

    /// The parameters of one result's row (it has a window).
    static func parameters(_ score: FleetScore, windowDays: Int) throws -> [String?] {
        let window = score.window
        let number = { (value: Double?) in value.map { String($0) } }
        return [score.device, String(windowDays), window?.end.description, window?.start.description, score.user, score.age.map { String($0) },
                number(score.total), number(score.score(of: .sleep)), number(score.score(of: .movement)),
                number(score.score(of: .stressRecovery)), score.scoresJSON.isEmpty ? nil : String(decoding: score.scoresJSON, as: UTF8.self),
                String(decoding: try CanonicalJSON.bytes(of: score.warnings, what: "the warnings"), as: UTF8.self), score.error]
    }
}

/// One batch being scored on every core, away from the thread that holds the connection.
private final class ScoringJob: Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let output = Mutex<[FleetScore]>([])

    /// Starts scoring `batch`.
    init(_ batch: [DeviceScoreRows], ages: FleetScoreAges, builder: VitalityWindowBuilder) {
        DispatchQueue.global().async {
            let scores = SummaryRecomputer.inParallel(batch) { $0.score(ages: ages, builder: builder) }
            self.output.withLock { $0 = scores }
            self.done.signal()
        }
    }

    /// The batch's results, in its order, once every device is scored.
    func results() -> [FleetScore] {
        done.wait()
        return output.withLock { $0 }
    }
}
