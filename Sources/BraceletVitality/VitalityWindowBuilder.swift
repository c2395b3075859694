import BraceletDecoder
import Foundation

/// Builds a ``VitalityWindow`` (7-30 consecutive complete days) from daily metrics.
///
/// Only complete days are used (see Definitions.md, "Coverage and complete days"): a bracelet day
/// that is not over, or on which less than 90 % of the minutes were recorded, is skipped and listed
/// in ``VitalityWindow/skippedDays`` (unless `includeIncompleteDays`). The window has `length` days
/// (7-30) ending at `end`, or at the latest used day that has any metric when `end` is nil. Each
/// metric is averaged over the window days that have it (nil when none); coverage is days with
/// data / days in the window. Minimum coverage: sleep duration, steps, and HRV or resting heart
/// rate, each on at least `minimumDays` days (default: half the window, rounded up); otherwise an
/// error lists every shortfall. A `minimumDays` below that default is allowed, with a warning
/// whenever a requirement is met on fewer days than the default. HRV values of different types are never averaged together: the type present on most
/// days wins (SDNN on a tie) and the other days are left out of the HRV average, with a note.
public struct VitalityWindowBuilder: Sendable, Hashable {
    /// Allowed window lengths in days.
    public static let allowedLengths = 7...30

    /// Days in the window.
    public var length: Int
    /// Last day of the window; nil = the latest day with data.
    public var end: LocalDate?
    /// How many days each required metric must have; nil = ``defaultMinimumDays(length:)``.
    public var minimumDays: Int?
    /// Use days that are not complete too.
    public var includeIncompleteDays: Bool
    /// The time (Unix seconds) at which a day must be over to be complete.
    public var now: Int64

    /// Creates a builder (7 days ending at the latest complete day with data, half the window as
    /// the minimum by default).
    public init(length: Int = 7, end: LocalDate? = nil, minimumDays: Int? = nil, includeIncompleteDays: Bool = false,
                now: Int64 = Int64(Date().timeIntervalSince1970)) {
        self.length = length
        self.end = end
        self.minimumDays = minimumDays
        self.includeIncompleteDays = includeIncompleteDays
        self.now = now
    }

    /// The default minimum: half the window's days, rounded up (4 of 7, 15 of 30).
    public static func defaultMinimumDays(length: Int) -> Int { (length + 1) / 2 }

    /// Whether `day` may be used: complete at ``now`` (or of a source without coverage), or any
    /// day with ``includeIncompleteDays``.
    func isUsable(_ day: DatedVitalityMetrics) -> Bool {
        includeIncompleteDays || day.coverage.map { $0.isComplete(at: now) } ?? true
    }

    /// The days ``build(from:age:)`` reads, taken from a subject's days handed over newest first
    /// by `next` (`nil` after the oldest) only as far as they matter, oldest first: with an
    /// ``end``, the window's days; without one, every day back to the latest usable day with any
    /// metric (the window's end) and the window's days before it. Building from them gives the
    /// window that building from every day gives, so a caller with a long history makes (decodes)
    /// only these days.
    public func daysRead(newestFirst next: () throws -> DatedVitalityMetrics?) rethrows -> [DatedVitalityMetrics] {
        var taken: [DatedVitalityMetrics] = []
        var windowEnd = end
        while let day = try next() {
            if let windowEnd, day.date < windowEnd.adding(days: -(length - 1)) { break }
            // After a fixed end a day is neither in the window nor listed as skipped.
            if let end, day.date > end { continue }
            taken.append(day)
            if windowEnd == nil, isUsable(day), day.metrics.hasAnyMetric { windowEnd = day.date }
        }
        return taken.reversed()
    }

    /// Checks the window's length and its minimum days, the one check of them: ``build(from:age:)``
    /// makes it first, and a command makes it while reading its options, before any day is read.
    public func validate() throws(VitalityWindowError) {
        guard Self.allowedLengths.contains(length) else { throw .lengthOutOfRange(length) }
        let minimumDays = self.minimumDays ?? Self.defaultMinimumDays(length: length)
        guard (1...length).contains(minimumDays) else { throw .minimumDaysOutOfRange(minimumDays: minimumDays, length: length) }
    }

    /// Builds the window. `age` goes into the averaged metrics.
    public func build(from days: [DatedVitalityMetrics], age: Int) throws(VitalityWindowError) -> VitalityWindow {
        try validate()
        let defaultMinimum = Self.defaultMinimumDays(length: length)
        let minimumDays = self.minimumDays ?? defaultMinimum
        var seen = Set<LocalDate>()
        for day in days {
            guard seen.insert(day.date).inserted else { throw .duplicateDate(day.date) }
        }
        var usable: [DatedVitalityMetrics] = []
        var incomplete: [SkippedDay] = []
        for day in days {
            if !isUsable(day), let why = day.coverage?.status(at: now).reason {
                incomplete.append(SkippedDay(date: day.date, reason: why))
            } else {
                usable.append(day)
            }
        }
        let windowEnd: LocalDate
        if let end {
            windowEnd = end
        } else if let latest = usable.filter({ $0.metrics.hasAnyMetric }).map(\.date).max() {
            windowEnd = latest
        } else {
            throw .noData
        }
        let start = windowEnd.adding(days: -(length - 1))
        let inWindow = usable.filter { $0.date >= start && $0.date <= windowEnd }.sorted { $0.date < $1.date }
        // Without --end, incomplete days after the window are what kept it from ending later: listed too.
        let skipped = incomplete.filter { $0.date >= start && ($0.date <= windowEnd || end == nil) }.sorted { $0.date < $1.date }

        var notes: [String] = []
        if !skipped.isEmpty {
            notes.append("left out \(skipped.count) incomplete day(s): " + skipped.map { "\($0.date) (\($0.reason))" }.joined(separator: "; ")
                + "; pass --include-incomplete to use them")
        }
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
        var warnings: [String] = []
        let thin = [("sleep duration", sleepDays), ("steps", stepDays), ("HRV or resting heart rate", recoveryDays)]
            .filter { $0.1 < defaultMinimum }
        if !thin.isEmpty {
            warnings.append("scored on fewer days than half the window (\(defaultMinimum) of \(length)): "
                + thin.map { "\($0.0) on \($0.1) day(s)" }.joined(separator: "; ")
                + "; the score may not represent the window")
        }

        return VitalityWindow(
            start: start, end: windowEnd, length: length, metrics: metrics, coverage: coverage,
            daysWithAnyData: inWindow.filter { $0.metrics.hasAnyMetric }.count, notes: notes, days: inWindow,
            skippedDays: skipped, warnings: warnings)
    }
}
