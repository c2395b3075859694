/// A scoring curve: points (metric value, score 0-100) joined by straight lines, flat beyond the
/// first and last point. Lets one shape express "higher is better up to a plateau", "a band is
/// best" or "lower is better".
public struct ReferenceCurve: Sendable, Hashable, Codable, CustomStringConvertible {
    /// One anchor of the curve.
    public struct Point: Sendable, Hashable, Codable {
        /// Metric value.
        public let value: Double
        /// Score at that value, 0-100.
        public let score: Double

        /// Creates a point.
        public init(_ value: Double, _ score: Double) {
            self.value = value
            self.score = score
        }
    }

    /// Anchors, sorted by value.
    public let points: [Point]
    /// Which age band the curve is for, for example "26-64 y".
    public let ageBand: String
    /// Short name of the sources behind the anchors (details in Scoring.md).
    public let source: String

    /// Creates a curve; points are sorted by value.
    public init(_ points: [Point], ageBand: String, source: String) {
        self.points = points.sorted { $0.value < $1.value }
        self.ageBand = ageBand
        self.source = source
    }

    /// The score of `value`, 0-100 (nil only for a curve without points or a non-finite value).
    public func score(_ value: Double) -> Double? {
        guard value.isFinite, let first = points.first, let last = points.last else { return nil }
        if value <= first.value { return first.score }
        if value >= last.value { return last.score }
        for (a, b) in zip(points, points.dropFirst()) where value <= b.value {
            if b.value == a.value { return b.score }
            return a.score + (b.score - a.score) * (value - a.value) / (b.value - a.value)
        }
        return last.score
    }

    /// `value->score` anchors, for tables and JSON readers.
    public var description: String {
        points.map { "\(formatNumber($0.value, decimals: 1))->\(formatNumber($0.score, decimals: 0))" }.joined(separator: ", ")
    }
}
