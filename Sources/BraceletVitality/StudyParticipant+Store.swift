import BraceletDecoder
import BraceletStore
import BraceletSummaries
import Foundation

extension StudyParticipant {
    /// The days of `device` on `dates` (consecutive, oldest first) from a bracelet database, and
    /// whether its last seven days that are over score: one read of its stored vitality rows, which
    /// carry each day's coverage as the day's summary counted it and are what `score --db` scores.
    /// A date without a row is missing once it is over in `zone` at `now` (Unix seconds).
    ///
    /// - Throws: the store's errors, and ``StoredVitalityMetricsError`` for a row that cannot be read.
    public static func days(in store: Store, device: String, dates: [LocalDate], zone: TimeZone, now: Int64,
                            age: Int?) throws -> (days: [StudyDay], scoring: StudyScoring) {
        guard let first = dates.first, let last = dates.last else {
            throw StoreError.invalidInput("the study page needs at least one date")
        }
        // The window may end the day before the page and starts six days before its end.
        let rows = try store.vitalityMetrics(device: device, fromDate: first.adding(days: -StudyScoring.windowDays).description,
                                             toDate: last.description)
        let stored = try rows.map { try StoredVitalityMetrics.decode(localDate: $0.localDate, json: $0.json,
                                                                     age: age ?? ReferenceRanges.supportedAges.lowerBound) }
        let days = StudyDay.page(dates: dates, coverage: Dictionary(stored.compactMap { day in day.coverage.map { (day.date, $0) } },
                                                                    uniquingKeysWith: { a, _ in a }),
                                 now: now, dayEnd: { date in LocalDates.unixSecondsRange(of: date.description, in: zone)?.upperBound })
        let end = StudyScoring.windowEnd(of: days) ?? last
        return (days, StudyScoring(days: stored, end: end, now: now, age: age))
    }
}

extension StudyDay {
    /// One day per date of `dates`: from its summary's coverage when `coverage` has the date, else
    /// missing or not over by `dayEnd` (the date's end, Unix seconds; `nil`: unknown, taken as over).
    public static func page(dates: [LocalDate], coverage: [LocalDate: DayCoverage], now: Int64,
                            dayEnd: (LocalDate) -> Int64?) -> [StudyDay] {
        dates.map { date in
            if let known = coverage[date] { return StudyDay(date: date, coverage: known, now: now) }
            return StudyDay(missing: date, dayEnd: dayEnd(date) ?? Int64.min, now: now)
        }
    }
}
