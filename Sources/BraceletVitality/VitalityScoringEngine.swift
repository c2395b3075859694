/// Scores ``VitalityRawMetrics`` (one day or a window) into three pillars and a total.
///
/// Each present metric gets a 0-100 score from its age-banded ``ReferenceCurve``; a pillar is the
/// weighted mean of its present metrics (weights from ``ReferenceRanges/weight(of:)`` renormalised
/// over what is present); the total is the plain mean of the pillars that have data. A nil metric
/// is excluded, never scored as 0. Pure and deterministic.
public enum VitalityScoringEngine {
    /// Scores the metrics; the age band comes from `metrics.age`.
    public static func score(_ metrics: VitalityRawMetrics) throws(VitalityScoringError) -> VitalityScore {
        guard ReferenceRanges.supportedAges.contains(metrics.age) else { throw .unsupportedAge(metrics.age) }
        var pillars: [PillarScore] = []
        for pillar in VitalityPillar.allCases {
            var scored: [MetricScore] = []
            var excluded: [VitalityField] = []
            for field in pillar.fields {
                let curve = ReferenceRanges.curve(for: field, age: metrics.age, hrvType: metrics.hrvType)
                guard let value = metrics.value(of: field), let s = curve.score(value) else {
                    excluded.append(field)
                    continue
                }
                scored.append(MetricScore(field: field, value: value, score: s,
                                          weight: ReferenceRanges.weight(of: field), reference: curve))
            }
            let weightSum = scored.reduce(0) { $0 + $1.weight }
            let pillarScore = scored.isEmpty || weightSum <= 0
                ? nil : scored.reduce(0) { $0 + $1.score * $1.weight } / weightSum
            pillars.append(PillarScore(pillar: pillar, score: pillarScore, metrics: scored, excluded: excluded))
        }
        let present = pillars.compactMap(\.score)
        let total = present.isEmpty ? nil : present.reduce(0, +) / Double(present.count)
        return VitalityScore(age: metrics.age, total: total, pillars: pillars)
    }
}

/// Why metrics could not be scored.
public enum VitalityScoringError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The age is outside the adult ranges the reference values are documented for.
    case unsupportedAge(Int)

    /// What went wrong and what to do.
    public var description: String {
        switch self {
        case let .unsupportedAge(age):
            return "age \(age) is outside \(ReferenceRanges.supportedAges.lowerBound)-\(ReferenceRanges.supportedAges.upperBound): "
                + "the reference ranges are adult guidelines. Give --age in whole years between 18 and 120."
        }
    }
}
