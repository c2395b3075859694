import BraceletDecoder
import BraceletStore
import Foundation

/// Everything `bracelet score` prints: the window, its averaged metrics, coverage, scores, notes and
/// the adapters' missing-field log for the window days. Rendered as JSON or as a readable table.
public struct ScoreReport: Sendable, Hashable, Codable {
    /// Where the days came from, for example `rook:data.json`.
    public let source: String
    /// The age scored for.
    public let age: Int
    /// The window with its averaged metrics and coverage.
    public let window: VitalityWindow
    /// The scores of the window's metrics.
    public let scores: VitalityScore

    /// Creates a report from a built window and its scores.
    public init(source: String, age: Int, window: VitalityWindow, scores: VitalityScore) {
        self.source = source
        self.age = age
        self.window = window
        self.scores = scores
    }

    /// Builds the window from daily metrics and scores it.
    public static func make(days: [DatedVitalityMetrics], age: Int, builder: VitalityWindowBuilder,
                            source: String) throws(ScoreReportError) -> ScoreReport {
        guard ReferenceRanges.supportedAges.contains(age) else { throw .scoring(.unsupportedAge(age)) }
        let window: VitalityWindow
        do { window = try builder.build(from: days, age: age) } catch { throw .window(error) }
        let scores: VitalityScore
        do { scores = try VitalityScoringEngine.score(window.metrics) } catch { throw .scoring(error) }
        return ScoreReport(source: source, age: age, window: window, scores: scores)
    }

    /// Maps every day of a ROOK file with ``ROOKDataAdapter`` and builds the report; a day's
    /// `coverage`, when the file has one, decides whether it is complete as it does for `--db`.
    public static func make(rook file: ROOKInputFile, age: Int, builder: VitalityWindowBuilder,
                            source: String) throws(ScoreReportError) -> ScoreReport {
        let days = file.days.map { day in
            let (metrics, missing) = ROOKDataAdapter.map(day: day, age: age)
            return DatedVitalityMetrics(date: day.date, metrics: metrics, missing: missing, coverage: day.coverage?.dayCoverage)
        }
        return try make(days: days, age: age, builder: builder, source: source)
    }

    // MARK: JSON

    /// The JSON document: `source`, `age`, `window` {start, end, days, daysWithAnyData}, `metrics`
    /// (VitalityRawMetrics, 2 decimals), `coverage`, `scores` {total, pillars[{pillar, score,
    /// metrics[{field, value, score, weight, ageBand, source, curve}], excluded}]}, `notes`,
    /// `warnings`, `skippedDays` [{date, reason}] and `missingByDay` [{date, missing[{field,
    /// reason}]}]. Keys sorted, nil written as null.
    public func json() -> String {
        guard let canonical = try? CanonicalJSON.bytes(of: JSONReport(self), what: "the score report") else { return "{}" }
        return String(decoding: CanonicalJSON.prettyPrinted(canonical), as: UTF8.self)
    }

    /// The canonical JSON of the `scores` object of ``json()`` alone: what `fleet score` prints and
    /// stores for each device, byte for byte the object `score --format json` prints.
    package func scoresJSON() throws -> [UInt8] {
        try CanonicalJSON.bytes(of: JSONReport.Scores(scores), what: "the scores")
    }

    struct JSONReport: Encodable {
        struct Window: Encodable {
            let start: LocalDate, end: LocalDate, days: Int, daysWithAnyData: Int
        }
        struct Metric: Encodable {
            let field: VitalityField, value: Double, score: Double, weight: Double
            let ageBand: String, source: String, curve: String
        }
        struct Pillar: Encodable {
            let pillar: VitalityPillar, score: Double?, metrics: [Metric], excluded: [VitalityField]
            func encode(to encoder: any Encoder) throws {
                var c = encoder.container(keyedBy: CodingKeys.self)
                try c.encode(pillar, forKey: .pillar)
                try c.encode(score, forKey: .score)
                try c.encode(metrics, forKey: .metrics)
                try c.encode(excluded, forKey: .excluded)
            }
            enum CodingKeys: String, CodingKey { case pillar, score, metrics, excluded }
        }
        struct Scores: Encodable {
            let total: Double?, pillars: [Pillar]
            /// `scores` as the report prints it: 1 decimal for scores, 2 for values.
            init(_ scores: VitalityScore) {
                total = scores.total.map { round($0, 1) }
                pillars = scores.pillars.map { p in
                    Pillar(pillar: p.pillar, score: p.score.map { round($0, 1) },
                           metrics: p.metrics.map { m in
                               Metric(field: m.field, value: round(m.value, 2), score: round(m.score, 1),
                                      weight: m.weight, ageBand: m.reference.ageBand, source: m.reference.source,
                                      curve: m.reference.description)
                           },
                           excluded: p.excluded)
                }
            }
            func encode(to encoder: any Encoder) throws {
                var c = encoder.container(keyedBy: CodingKeys.self)
                try c.encode(total, forKey: .total)
                try c.encode(pillars, forKey: .pillars)
            }
            enum CodingKeys: String, CodingKey { case total, pillars }
        }
        struct DayMissing: Encodable {
            let date: LocalDate, missing: [MissingField]
        }
        let source: String
        let age: Int
        let window: Window
        let metrics: VitalityRawMetrics
        let coverage: [FieldCoverage]
        let scores: Scores
        let notes: [String]
        let warnings: [String]
        let skippedDays: [SkippedDay]
        let missingByDay: [DayMissing]

        init(_ r: ScoreReport) {
            source = r.source
            age = r.age
            window = Window(start: r.window.start, end: r.window.end, days: r.window.length,
                            daysWithAnyData: r.window.daysWithAnyData)
            metrics = ScoreReport.rounded(r.window.metrics)
            coverage = r.window.coverage
            scores = Scores(r.scores)
            notes = r.window.notes
            warnings = r.window.warnings
            skippedDays = r.window.skippedDays
            missingByDay = r.window.days.filter { !$0.missing.isEmpty }.map { DayMissing(date: $0.date, missing: $0.missing) }
        }
    }

    /// `v` rounded to `decimals` decimals, as the report prints scores (1) and values (2).
    package static func round(_ v: Double, _ decimals: Int) -> Double {
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        return (v * scale).rounded() / scale
    }

    static func rounded(_ m: VitalityRawMetrics) -> VitalityRawMetrics {
        func r(_ v: Double?) -> Double? { v.map { round($0, 2) } }
        return VitalityRawMetrics(
            age: m.age, sleepDurationHours: r(m.sleepDurationHours), restorativeSleepPercent: r(m.restorativeSleepPercent),
            sleepEfficiencyPercent: r(m.sleepEfficiencyPercent), awakePercent: r(m.awakePercent),
            movementMinutes: r(m.movementMinutes), steps: m.steps, activeCalories: r(m.activeCalories),
            hrvMs: r(m.hrvMs), hrvType: m.hrvType, restingHeartRate: r(m.restingHeartRate), breathingRate: r(m.breathingRate))
    }

    // MARK: Table

    /// A readable table: window, one row per metric (average, coverage, score, age band), the
    /// pillars and the total, then notes and which days had missing inputs.
    public func table() -> String {
        var lines: [String] = []
        lines.append("Vitality score from \(source), age \(age)")
        lines.append("Window \(window.start) ... \(window.end): \(window.length) days, \(window.daysWithAnyData) with data")
        lines.append("")
        lines.append(pad("Metric", 22) + lpad("Average", 10) + lpad("Coverage", 14) + lpad("Score", 8) + "  Reference")
        for pillar in VitalityPillar.allCases {
            for field in pillar.fields {
                let cov = window.coverage(of: field)
                let covText = "\(cov.daysWithData)/\(cov.daysInWindow) \(formatNumber(cov.fraction * 100, decimals: 0))%"
                var average = window.metrics.value(of: field).map { formatNumber($0, decimals: field == .steps ? 0 : 2) } ?? "-"
                if field == .hrvMs, let type = window.metrics.hrvType { average += " " + type.rawValue }
                let scored = scores.metric(field)
                let scoreText = scored.map { formatFixed($0.score, 1) } ?? "-"
                let reference = scored.map { "\($0.reference.ageBand), \($0.reference.source)" } ?? "excluded: no data"
                lines.append(pad(field.label, 22) + lpad(average, 10) + lpad(covText, 14) + lpad(scoreText, 8) + "  " + reference)
            }
        }
        lines.append("")
        lines.append(pad("Pillar", 22) + lpad("Score", 8))
        for p in scores.pillars {
            lines.append(pad(p.pillar.label, 22) + lpad(p.score.map { formatFixed($0, 1) } ?? "- (no data)", 8))
        }
        let used = scores.pillars.filter { $0.score != nil }.count
        lines.append(pad("Total", 22) + lpad(scores.total.map { formatFixed($0, 1) } ?? "-", 8)
                     + "  (mean of \(used) of \(scores.pillars.count) pillars with data)")
        if !window.warnings.isEmpty {
            lines.append("")
            lines.append("Warnings:")
            lines.append(contentsOf: window.warnings.map { "  - " + $0 })
        }
        if !window.notes.isEmpty {
            lines.append("")
            lines.append("Notes:")
            lines.append(contentsOf: window.notes.map { "  - " + $0 })
        }
        let gaps = window.days.filter { !$0.missing.isEmpty }
        if !gaps.isEmpty {
            lines.append("")
            lines.append("Days with missing inputs (reasons: --format json):")
            for day in gaps {
                lines.append("  \(day.date): " + day.missing.map(\.field.rawValue).joined(separator: ", "))
            }
        }
        let absent = window.length - window.days.count
        if absent > 0 { lines.append("  \(absent) day(s) of the window are absent from the input") }
        return lines.joined(separator: "\n")
    }

    func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s + " " : s + String(repeating: " ", count: n - s.count) }
    func lpad(_ s: String, _ n: Int) -> String { s.count >= n ? " " + s : String(repeating: " ", count: n - s.count) + s }
    func formatFixed(_ v: Double, _ decimals: Int) -> String { String(format: "%.\(decimals)f", v) }
}

/// Why `bracelet score` could not produce a report.
public enum ScoreReportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The input file could not be used.
    case input(ROOKInputError)
    /// The window could not be built or lacks required data.
    case window(VitalityWindowError)
    /// The metrics could not be scored.
    case scoring(VitalityScoringError)

    /// The underlying message.
    public var description: String {
        switch self {
        case let .input(e): e.description
        case let .window(e): e.description
        case let .scoring(e): e.description
        }
    }
}
