/// Time-domain heart-rate variability of a run of beats.
///
/// Encodes with the keys `mean_nn_ms`, `sdnn_ms`, `rmssd_ms`, `pnn50`, `mean_hr`, `kept`,
/// `dropped`, `dropped_by`; a value that cannot be computed is `null`.
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
    /// Number of intervals the input held that were not used, for any reason (``droppedBy``).
    public var dropped: Int
    /// Why each dropped interval was not used.
    public var droppedBy = HRVDrops()

    enum CodingKeys: String, CodingKey {
        case meanNNMs = "mean_nn_ms"
        case sdnnMs = "sdnn_ms"
        case rmssdMs = "rmssd_ms"
        case pnn50
        case meanHR = "mean_hr"
        case kept, dropped
        case droppedBy = "dropped_by"
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

/// Why intervals were not used: each one the input held is kept or counted in exactly one of these.
/// Encodes with the keys `unreadable`, `same_time`, `out_of_range`, `artefact`.
public struct HRVDrops: Sendable, Equatable, Codable {
    /// The input held it but it could not be read (a CSV cell that is not a number in range).
    public var unreadable = 0
    /// Its beat has the time of an earlier beat with another interval.
    public var sameTime = 0
    /// Outside 300-2000 ms.
    public var outOfRange = 0
    /// More than 20 % away from the previous kept interval (filter `malik20`).
    public var artefact = 0

    enum CodingKeys: String, CodingKey {
        case unreadable
        case sameTime = "same_time"
        case outOfRange = "out_of_range"
        case artefact
    }

    /// No interval dropped.
    public init() {}

    /// All of them.
    public var total: Int { unreadable + sameTime + outOfRange + artefact }
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
