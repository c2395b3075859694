/// Time-domain heart-rate variability of a run of beats.
///
/// Encodes with the keys `mean_nn_ms`, `sdnn_ms`, `rmssd_ms`, `pnn50`, `mean_hr`, `kept`,
/// `dropped`; a value that cannot be computed is `null`.
public struct HRVResult: Sendable, Equatable, Codable {
    /// Mean of the kept NN intervals, ms; nil with no kept interval.
    @Nullable public var meanNNMs: Double?
    /// Sample standard deviation (n - 1) of the kept NN intervals, ms; nil under 2 intervals.
    @Nullable public var sdnnMs: Double?
    /// Root mean square of successive differences between adjacent kept intervals, ms; nil with no difference.
    @Nullable public var rmssdMs: Double?
    /// Percent of successive differences larger than 50 ms; nil with no difference.
    @Nullable public var pnn50: Double?
    /// 60 000 / mean NN, beats per minute; nil with no kept interval.
    @Nullable public var meanHR: Double?
    /// Number of intervals kept.
    public var kept: Int
    /// Number of intervals dropped (outside 300-2000 ms, or by the 20 % rule).
    public var dropped: Int

    enum CodingKeys: String, CodingKey {
        case meanNNMs = "mean_nn_ms"
        case sdnnMs = "sdnn_ms"
        case rmssdMs = "rmssd_ms"
        case pnn50
        case meanHR = "mean_hr"
        case kept, dropped
    }

    /// Creates a result.
    public init(meanNNMs: Double?, sdnnMs: Double?, rmssdMs: Double?, pnn50: Double?, meanHR: Double?, kept: Int, dropped: Int) {
        self.meanNNMs = meanNNMs
        self.sdnnMs = sdnnMs
        self.rmssdMs = rmssdMs
        self.pnn50 = pnn50
        self.meanHR = meanHR
        self.kept = kept
        self.dropped = dropped
    }
}

/// HRV of one night: mean RMSSD of the valid 5-minute windows of the main sleep.
public struct NightlyHRV: Sendable, Equatable, Codable {
    /// Mean of the windows' RMSSD, ms; nil with fewer than 3 valid windows.
    @Nullable public var rmssdMs: Double?
    /// SDNN over the kept intervals of the valid windows, ms; nil with fewer than 3 valid windows.
    @Nullable public var sdnnMs: Double?
    /// Number of valid windows (>= 80 % of beats kept and RMSSD defined).
    public var validWindows: Int
    /// Number of 5-minute windows in the main sleep that held at least one beat.
    public var windowsWithBeats: Int

    /// Creates a nightly HRV value.
    public init(rmssdMs: Double?, sdnnMs: Double?, validWindows: Int, windowsWithBeats: Int) {
        self.rmssdMs = rmssdMs
        self.sdnnMs = sdnnMs
        self.validWindows = validWindows
        self.windowsWithBeats = windowsWithBeats
    }
}
