import BraceletDecoder
import BraceletSummaries
import BraceletVitality

extension FleetReader {
    /// The vitality metrics of every delivered day of `subject`, oldest first, built from the
    /// delivered day summaries and sleep sessions the way the gateway builds its own (each day
    /// with the sessions of its local date and its coverage), for ``BraceletVitality/ScoreReport``.
    ///
    /// Movement minutes rest on the heart-rate zones the gateway cut with its `--age`/`--hr-max`;
    /// a gateway that had neither used the default age, and its days count zone minutes with it.
    public func vitalityDays(of subject: Subject, age: Int, fromDate: String = "0001-01-01",
                             toDate: String = "9999-12-31") throws -> [DatedVitalityMetrics] {
        let summaries = try days(of: subject, fromDate: fromDate, toDate: toDate)
        let sessions = Dictionary(grouping: try sleepSessions(of: subject, fromDate: fromDate, toDate: toDate), by: \.recordDate)
        return summaries.compactMap { summary in
            guard let date = LocalDate(iso: summary.date),
                  let day = BraceletDay(summary: summary, sleepSessions: sessions[summary.date] ?? []) else { return nil }
            let (metrics, missing) = vitalityMetrics(for: day, age: age)
            return DatedVitalityMetrics(date: date, metrics: metrics, missing: missing, coverage: summary.coverage)
        }
    }
}
