/// The score of one metric.
public struct MetricScore: Sendable, Hashable, Codable {
    /// The metric.
    public let field: VitalityField
    /// Its value (window average).
    public let value: Double
    /// Score 0-100 from the reference curve.
    public let score: Double
    /// Its weight in the pillar before renormalising over present metrics.
    public let weight: Double
    /// The curve used (age band, anchors, source).
    public let reference: ReferenceCurve

    /// Creates a metric score.
    public init(field: VitalityField, value: Double, score: Double, weight: Double, reference: ReferenceCurve) {
        self.field = field
        self.value = value
        self.score = score
        self.weight = weight
        self.reference = reference
    }
}

/// The score of one pillar: the weighted mean of its present metrics' scores.
public struct PillarScore: Sendable, Hashable, Codable {
    /// The pillar.
    public let pillar: VitalityPillar
    /// 0-100, or nil when none of its metrics has a value.
    public let score: Double?
    /// Scores of the metrics that have a value.
    public let metrics: [MetricScore]
    /// Metrics of this pillar without a value: excluded, not scored as 0.
    public let excluded: [VitalityField]

    /// Creates a pillar score.
    public init(pillar: VitalityPillar, score: Double?, metrics: [MetricScore], excluded: [VitalityField]) {
        self.pillar = pillar
        self.score = score
        self.metrics = metrics
        self.excluded = excluded
    }
}

/// A vitality score: the mean of the pillars that have data, and the pillar and metric details.
public struct VitalityScore: Sendable, Hashable, Codable {
    /// The age the reference ranges were chosen for.
    public let age: Int
    /// Mean of the pillar scores that are not nil; nil when no pillar has data.
    public let total: Double?
    /// All three pillars, in ``VitalityPillar`` order.
    public let pillars: [PillarScore]

    /// Creates a score.
    public init(age: Int, total: Double?, pillars: [PillarScore]) {
        self.age = age
        self.total = total
        self.pillars = pillars
    }

    /// The score of one pillar.
    public func pillar(_ pillar: VitalityPillar) -> PillarScore? { pillars.first { $0.pillar == pillar } }

    /// The score of one metric, when it had a value.
    public func metric(_ field: VitalityField) -> MetricScore? {
        pillars.lazy.flatMap(\.metrics).first { $0.field == field }
    }
}
