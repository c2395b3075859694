import BraceletDecoder
import BraceletStore
import BraceletVitality
import Foundation

/// The vitality score of the 7-day window ending on one date, with its pillars, for the week view.
public struct WeekScore: Sendable, Equatable {
    /// The last day of the window (`YYYY-MM-DD`).
    public var date: String
    /// The total score 0-100; nil when it cannot be scored.
    public var total: Double?
    /// Each pillar's score; nil for a pillar without data.
    public var pillars: [VitalityPillar: Double]

    /// Creates a score row.
    public init(date: String, total: Double?, pillars: [VitalityPillar: Double]) {
        self.date = date
        self.total = total
        self.pillars = pillars
    }

    /// The rolling scores of `dates` from the vitality metrics stored for `device` (the age is the
    /// one stored with the metrics). A date whose window cannot be scored gets nil values, and
    /// without stored metrics the result is empty.
    public static func load(store: Store, device: String, dates: [String]) throws -> [WeekScore] {
        let rows = try store.vitalityMetrics(device: device, fromDate: "0000-01-01", toDate: dates.max() ?? "9999-12-31")
        let days = rows.compactMap { try? StoredVitalityMetrics.decode(localDate: $0.localDate, json: $0.json) }
        guard let age = days.last?.metrics.age else { return [] }
        return dates.map { date in
            guard let end = LocalDate(iso: date),
                  let report = try? ScoreReport.make(days: days, age: age, builder: VitalityWindowBuilder(length: 7, end: end), source: "report")
            else { return WeekScore(date: date, total: nil, pillars: [:]) }
            var pillars: [VitalityPillar: Double] = [:]
            for pillar in report.scores.pillars { if let score = pillar.score { pillars[pillar.pillar] = score } }
            return WeekScore(date: date, total: report.scores.total, pillars: pillars)
        }
    }
}
