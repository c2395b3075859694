import BraceletSummaries
import BraceletVitality
import Foundation

extension FleetReader {
    /// The vitality metrics of every delivered day of `subject`, oldest first, built from the
    /// delivered day summaries and sleep sessions the way the gateway builds its own (each day
    /// with the sessions of its local date and its coverage), for ``BraceletVitality/ScoreReport``.
    /// Only the score inputs stored beside the payloads are read (a few kB per day and 0.6 kB per
    /// session); a row delivered without one is read from its payload.
    ///
    /// Movement minutes rest on the heart-rate zones the gateway cut with its `--age`/`--hr-max`;
    /// a gateway that had neither used the default age, and its days count zone minutes with it.
    public func vitalityDays(of subject: Subject, age: Int, fromDate: String = "0001-01-01",
                             toDate: String = "9999-12-31") throws -> [DatedVitalityMetrics] {
        DayScoreInput.vitalityDays(try scoreInputs(of: subject, fromDate: fromDate, toDate: toDate),
                                   sleepSessions: try sleepScoreInputs(of: subject, fromDate: fromDate, toDate: toDate), age: age)
    }

    /// What scoring reads of the days ``days(of:fromDate:toDate:)`` returns: the stored score input,
    /// or (for a row delivered without one) the input made from its payload.
    func scoreInputs(of subject: Subject, fromDate: String, toDate: String) throws -> [DayScoreInput] {
        let rows = try connection.execute("""
            SELECT DISTINCT ON (local_date) score_input, CASE WHEN score_input IS NULL THEN payload END
            FROM \(subject.rows(of: "fleet_daily_summaries", "local_date, delivered_at, score_input, payload", where: Self.dayFilter))
            ORDER BY local_date, delivered_at DESC
            """, [subject.value, Self.dailyKind, fromDate, toDate])
        return try rows.values.map { try Self.dayScoreInput(stored: $0.first ?? nil, payload: $0.count > 1 ? $0[1] : nil) }
    }

    /// A day row's score input: the stored one, or (for a row delivered without one) the one made
    /// from its payload.
    static func dayScoreInput(stored: String?, payload: String?) throws -> DayScoreInput {
        if let stored { return try scoreInput(stored, as: DayScoreInput.self) }
        return DayScoreInput(summary: try summary(of: payload, as: DailySummary.self))
    }

    /// The sleep sessions ``sleepSessions(of:fromDate:toDate:)`` returns without their stage samples:
    /// the stored score input, or (for a row delivered without one) the session from its payload.
    func sleepScoreInputs(of subject: Subject, fromDate: String, toDate: String) throws -> [SleepSession] {
        let rows = try connection.execute("""
            SELECT score_input, CASE WHEN score_input IS NULL THEN payload END
            FROM \(subject.rows(of: "fleet_sleep_sessions", "session_start, score_input, payload",
                                where: "local_date BETWEEN $2::date AND $3::date"))
            ORDER BY session_start
            """, [subject.value, fromDate, toDate])
        return try rows.values.map { try Self.sleepScoreInput(stored: $0.first ?? nil, payload: $0.count > 1 ? $0[1] : nil) }
    }

    /// A sleep session row's score input: the stored one, or (for a row delivered without one) the
    /// session of its payload.
    static func sleepScoreInput(stored: String?, payload: String?) throws -> SleepSession {
        if let stored { return try scoreInput(stored, as: SleepSession.self) }
        return try summary(of: payload, as: SleepSession.self)
    }

    /// A stored score input, decoded.
    private static func scoreInput<T: Decodable>(_ text: String, as type: T.Type) throws -> T {
        do { return try JSONDecoder().decode(T.self, from: Data(text.utf8)) } catch {
            throw FleetError.badRow(detail: "a score input is not one this build reads (\(error))")
        }
    }
}
