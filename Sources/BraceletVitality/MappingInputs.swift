/// One source value offered to the mapping rules, with the name it has in its source (for example
/// `sleep_summary.time_in_bed_seconds_int` or `BraceletDay.timeInBedSeconds`) so missing-field
/// reasons can say exactly which input was absent.
struct NamedInput: Sendable {
    let name: String
    let value: Double?
    /// The source writes 0 for "not measured" (ROOK does, for every field): a 0 is read as missing.
    let zeroMeansMissing: Bool

    init(_ name: String, _ value: Double?, zeroMeansMissing: Bool = false) {
        self.name = name
        self.value = value
        self.zeroMeansMissing = zeroMeansMissing
    }

    init(_ name: String, _ value: Int?, zeroMeansMissing: Bool = false) {
        self.init(name, value.map(Double.init), zeroMeansMissing: zeroMeansMissing)
    }
}

/// The inputs of one day in the shape the shared mapping rules take. Both adapters (bracelet and
/// ROOK) fill this, so both apply exactly the same rules.
struct MappingInputs: Sendable {
    // Sleep, all in seconds (main sleep).
    var totalSleepSeconds: NamedInput
    var deepSleepSeconds: NamedInput
    var remSleepSeconds: NamedInput
    var awakeSeconds: NamedInput
    var timeInBedSeconds: NamedInput
    // Movement.
    /// Minutes of movement from the day's minute data (primary source).
    var movementMinutes: NamedInput
    /// Name of the fallback list (for reasons) and the durations in seconds of each workout/session.
    var workoutsName: String
    var workoutSeconds: [Double?]
    var steps: NamedInput
    var activeEnergyKcal: NamedInput
    var totalEnergyKcal: NamedInput
    // Recovery, candidates in order of preference.
    var hrvCandidates: [(input: NamedInput, type: HRVType)]
    var restingHeartRateCandidates: [NamedInput]
    var breathingRateCandidates: [NamedInput]
}
