import BraceletDecoder
import BraceletVitality

/// One row of a device as the server sent it: its local date, its stored score input and, for a
/// row delivered without one, its payload (decoded by the scoring threads).
typealias ScoreRow = (date: String, stored: String?, payload: String?)

/// The rows one device's score is made of.
struct DeviceScoreRows: Sendable {
    /// The bracelet serial.
    let device: String
    /// Its participant in `fleet_devices`.
    let user: String?
    /// Whether it has any day summary at all (the rows read may be only a window's).
    let hasDays: Bool
    /// Its day rows read, oldest first.
    var days: [ScoreRow] = []
    /// Its sleep session rows read, by start.
    var sessions: [ScoreRow] = []

    /// The device's score: the rows decoded the way `score --postgres --device` decodes them and
    /// scored by the same ``BraceletVitality/ScoreReport/make(days:age:builder:source:)``.
    ///
    /// Only the days the window reads are decoded (``BraceletVitality/VitalityWindowBuilder/daysRead(newestFirst:)``,
    /// newest first, each with the sessions of its date): decoding is most of the cost, and a
    /// nightly 7-day score of a long study would otherwise decode the whole history every night. So
    /// a damaged row the window does not read does not stop the device's score, where `score
    /// --device`, which decodes every row, stops.
    func score(ages: FleetScoreAges, builder: VitalityWindowBuilder) -> FleetScore {
        guard let age = ages.age(device: device, user: user) else {
            return FleetScore(device: device, user: user, age: nil, error: "no age was given for device \(device)"
                + (user.map { " (participant \($0))" } ?? "") + ": give --age N for every device, or list it in --ages FILE")
        }
        guard hasDays else {
            return FleetScore(device: device, user: user, age: age, error: "the fleet database holds no day summaries for device \(device)")
        }
        do {
            let sessionsByDate = Dictionary(grouping: sessions, by: \.date)
            var newest = days.endIndex
            let days = try builder.daysRead {
                while newest > self.days.startIndex {
                    newest -= 1
                    let row = self.days[newest]
                    let input = try FleetReader.dayScoreInput(stored: row.stored, payload: row.payload)
                    let sessions = try (sessionsByDate[row.date] ?? []).map { try FleetReader.sleepScoreInput(stored: $0.stored, payload: $0.payload) }
                    if let day = DayScoreInput.vitalityDays([input], sleepSessions: sessions, age: age).first { return day }
                }
                return nil
            }
            return try FleetScore(device: device, user: user, age: age,
                                  report: ScoreReport.make(days: days, age: age, builder: builder, source: "postgres device \(device)"))
        } catch let error as ScoreReportError {
            var window: (start: LocalDate, end: LocalDate)?
            if case let .window(.insufficientCoverage(start, end, _, _)) = error { window = (start, end) }
            return FleetScore(device: device, user: user, age: age, error: error.description, window: window)
        } catch {
            return FleetScore(device: device, user: user, age: age, error: "\(error)")
        }
    }
}

/// Reads the fleet's devices in batches of bounded size, each with the rows its score needs, in
/// device order (keyset pagination: each page starts after the last device of the one before, so
/// no offset is rescanned and memory holds one batch, however many devices the fleet has).
///
/// A batch is cut by weight, not by device count: a row with a stored score input counts 1 (2 kB
/// for a day, 0.6 kB for a session); a row delivered without one is read whole (its 0.6 MB day
/// payload or 13-23 kB session), and counts accordingly.
struct FleetScoreBatches {
    let connection: PGConnection
    /// First and last local date read (the window when `--end` fixes it, else every date).
    let fromDate: String
    let toDate: String
    /// The weight of rows a batch holds at most (one device at least).
    let budget: Int
    /// Devices listed per listing query.
    let pageSize = 1_000

    /// What a day row without a score input weighs against one with (0.6 MB against 2 kB).
    static let dayPayloadWeight = 300
    /// What a session row without a score input weighs against one with.
    static let sessionPayloadWeight = 30

    private var listed: [(device: String, user: String?, hasDays: Bool, weight: Int)] = []
    private var listedIndex = 0
    /// The last serial listed; serials are never empty, so "" lists from the first.
    private var lastListed = ""
    private var exhausted = false

    init(connection: PGConnection, fromDate: String, toDate: String, budget: Int) {
        self.connection = connection
        self.fromDate = fromDate
        self.toDate = toDate
        self.budget = max(1, budget)
    }

    /// The next batch of devices with their rows, `nil` after the last device.
    mutating func next() throws -> [DeviceScoreRows]? {
        var chosen: [DeviceScoreRows] = []
        var weight = 0
        while true {
            if listedIndex == listed.count {
                if exhausted { break }
                try list()
                if listed.isEmpty { break }
            }
            let candidate = listed[listedIndex]
            if !chosen.isEmpty && weight + candidate.weight > budget { break }
            chosen.append(DeviceScoreRows(device: candidate.device, user: candidate.user, hasDays: candidate.hasDays))
            weight += candidate.weight
            listedIndex += 1
        }
        if chosen.isEmpty { return nil }
        try fill(&chosen)
        return chosen
    }

    /// The next page of devices after the last one listed, with their weights.
    private mutating func list() throws {
        let rows = try connection.execute("""
            SELECT d.device, d.user_id, EXISTS (SELECT FROM fleet_daily_summaries s WHERE s.device = d.device AND s.kind = $2),
                (SELECT count(*) + \(Self.dayPayloadWeight - 1) * count(*) FILTER (WHERE s.score_input IS NULL)
                 FROM fleet_daily_summaries s WHERE s.device = d.device AND s.kind = $2 AND s.local_date BETWEEN $3::date AND $4::date)
                + (SELECT count(*) + \(Self.sessionPayloadWeight - 1) * count(*) FILTER (WHERE s.score_input IS NULL)
                 FROM fleet_sleep_sessions s WHERE s.device = d.device AND s.local_date BETWEEN $3::date AND $4::date)
            FROM fleet_devices d WHERE d.device > $1::text ORDER BY d.device LIMIT \(pageSize)
            """, [lastListed, FleetReader.dailyKind, fromDate, toDate])
        listed = rows.values.map { ($0[0] ?? "", $0[1], $0[2] == "t", Int($0[3] ?? "") ?? 1) }
        listedIndex = 0
        lastListed = listed.last?.device ?? lastListed
        exhausted = listed.count < pageSize
    }

    /// Reads the day and session rows of `devices` (two statements for the whole batch).
    private func fill(_ devices: inout [DeviceScoreRows]) throws {
        let index = Dictionary(uniqueKeysWithValues: devices.enumerated().map { ($1.device, $0) })
        let array = Self.textArray(devices.map(\.device))
        // One row per (device, kind, date) by the primary key: the newest delivered version, as
        // `score --postgres --device` reads it.
        let days = try connection.execute("""
            SELECT device, local_date::text, score_input, CASE WHEN score_input IS NULL THEN payload END FROM fleet_daily_summaries
            WHERE device = ANY($1::text[]) AND kind = $2 AND local_date BETWEEN $3::date AND $4::date ORDER BY device, local_date
            """, [array, FleetReader.dailyKind, fromDate, toDate])
        for row in days.values {
            guard let device = row[0], let at = index[device] else { continue }
            devices[at].days.append((row[1] ?? "", row[2], row[3]))
        }
        let sessions = try connection.execute("""
            SELECT device, local_date::text, score_input, CASE WHEN score_input IS NULL THEN payload END FROM fleet_sleep_sessions
            WHERE device = ANY($1::text[]) AND local_date BETWEEN $2::date AND $3::date ORDER BY device, session_start
            """, [array, fromDate, toDate])
        for row in sessions.values {
            guard let device = row[0], let at = index[device] else { continue }
            devices[at].sessions.append((row[1] ?? "", row[2], row[3]))
        }
    }

    /// `values` as a PostgreSQL array literal of text (each element quoted, `"` and `\` escaped).
    static func textArray(_ values: [String]) -> String {
        "{" + values.map { value in
            "\"" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }.joined(separator: ",") + "}"
    }
}
