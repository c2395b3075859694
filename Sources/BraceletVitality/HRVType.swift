/// Which heart-rate-variability statistic ``VitalityRawMetrics/hrvMs`` holds.
///
/// SDNN and RMSSD measure different things and are never converted one into the other; the type
/// travels with the value so scoring can use the right reference range. Encoded as `"sdnn"` or
/// `"rmssd"`, the strings of the ROOK implementation requirements.
public enum HRVType: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// Standard deviation of normal-to-normal beat intervals.
    case sdnn
    /// Root mean square of successive beat-interval differences.
    case rmssd

    /// `sdnn` or `rmssd`.
    public var description: String { rawValue }
}
