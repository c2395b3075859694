/// Builds a ``VitalityWindow`` from daily metrics (issue 4 item 5).
///
/// The window has `length` days (7-30) ending at `end`, or at the latest day that has any metric
/// when `end` is nil. Each metric is averaged over the window days that have it (nil when none);
/// coverage is days with data / days in the window. Minimum coverage: sleep duration, steps, and HRV
/// or resting heart rate, each on at least `minimumDays` days; otherwise an error lists every
/// shortfall. HRV values of different types are never averaged together: the type present on most
/// days wins (SDNN on a tie) and the other days are left out of the HRV average, with a note.
public struct VitalityWindowBuilder: Sendable, Hashable {
    /// Allowed window lengths in days.
    public static let allowedLengths = 7...30

    /// Days in the window.
    public var length: Int
    /// Last day of the window; nil = the latest day with data.
    public var end: LocalDate?
    /// How many days each required metric must have.
    public var minimumDays: Int

    /// Creates a builder (7 days ending at the latest day with data, 1 day minimum by default).
    public init(length: Int = 7, end: LocalDate? = nil, minimumDays: Int = 1) {
        self.length = length
        self.end = end
        self.minimumDays = minimumDays
    }

    /// Builds the window. `age` goes into the averaged metrics.
    public func build(from days: [DatedVitalityMetrics], age: Int) throws(VitalityWindowError) -> VitalityWindow {
        guard Self.allowedLengths.contains(length) else { throw .lengthOutOfRange(length) }
        guard (1...length).contains(minimumDays) else { throw .minimumDaysOutOfRange(minimumDays: minimumDays, length: length) }
        var seen = Set<LocalDate>()
        for day in days {
            guard seen.insert(day.date).inserted else { throw .duplicateDate(day.date) }
        }
        let windowEnd: LocalDate
        if let end {
            windowEnd = end
        } else if let latest = days.filter({ $0.metrics.hasAnyMetric }).map(\.date).max() {
            windowEnd = latest
        } else {
            throw .noData
        }
        let start = windowEnd.adding(days: -(length - 1))
        let inWindow = days.filter { $0.date >= start && $0.date <= windowEnd }.sorted { $0.date < $1.date }

        var notes: [String] = []
        var coverage: [FieldCoverage] = []
        var averages: [VitalityField: Double] = [:]

        // HRV: choose one type, never mix.
        let hrvDays = inWindow.filter { $0.metrics.hrvMs != nil }
        var hrvType: HRVType?
        var hrvUsed = hrvDays
        if !hrvDays.isEmpty {
            let candidates: [HRVType?] = [.sdnn, .rmssd, nil]
            let counts = candidates.map { type in hrvDays.filter { $0.metrics.hrvType == type }.count }
            var best = 0
            for i in counts.indices where counts[i] > counts[best] { best = i }
            hrvType = candidates[best]
            hrvUsed = hrvDays.filter { $0.metrics.hrvType == hrvType }
            if hrvUsed.count < hrvDays.count {
                let left = hrvDays.count - hrvUsed.count
                notes.append("HRV: averaged the \(hrvUsed.count) day(s) with type \(hrvType?.rawValue ?? "unknown"); "
                    + "\(left) day(s) with another type left out (SDNN and RMSSD are never mixed or converted)")
            }
        }

        for field in VitalityField.allCases {
            let source = field == .hrvMs ? hrvUsed : inWindow
            let values = source.compactMap { $0.metrics.value(of: field) }
            coverage.append(FieldCoverage(field: field, daysWithData: values.count, daysInWindow: length))
            if !values.isEmpty { averages[field] = values.reduce(0, +) / Double(values.count) }
        }

        let metrics = VitalityRawMetrics(
            age: age,
            sleepDurationHours: averages[.sleepDurationHours],
            restorativeSleepPercent: averages[.restorativeSleepPercent],
            sleepEfficiencyPercent: averages[.sleepEfficiencyPercent],
            awakePercent: averages[.awakePercent],
            movementMinutes: averages[.movementMinutes],
            steps: averages[.steps].map { Int($0.rounded()) },
            activeCalories: averages[.activeCalories],
            hrvMs: averages[.hrvMs], hrvType: averages[.hrvMs] == nil ? nil : hrvType,
            restingHeartRate: averages[.restingHeartRate],
            breathingRate: averages[.breathingRate])

        // Minimum coverage.
        var shortfalls: [CoverageShortfall] = []
        let sleepDays = inWindow.filter { $0.metrics.sleepDurationHours != nil }.count
        if sleepDays < minimumDays { shortfalls.append(CoverageShortfall(requirement: "sleep duration", daysWithData: sleepDays)) }
        let stepDays = inWindow.filter { $0.metrics.steps != nil }.count
        if stepDays < minimumDays { shortfalls.append(CoverageShortfall(requirement: "steps", daysWithData: stepDays)) }
        let recoveryDays = inWindow.filter { $0.metrics.hrvMs != nil || $0.metrics.restingHeartRate != nil }.count
        if recoveryDays < minimumDays {
            shortfalls.append(CoverageShortfall(requirement: "HRV or resting heart rate", daysWithData: recoveryDays))
        }
        guard shortfalls.isEmpty else {
            throw .insufficientCoverage(start: start, end: windowEnd, minimumDays: minimumDays, shortfalls: shortfalls)
        }

        return VitalityWindow(
            start: start, end: windowEnd, length: length, metrics: metrics, coverage: coverage,
            daysWithAnyData: inWindow.filter { $0.metrics.hasAnyMetric }.count, notes: notes, days: inWindow)
    }
}
