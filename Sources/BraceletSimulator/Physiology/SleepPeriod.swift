/// A sleep stage as the bracelet records it in each slot.
public enum SleepStage: Int, Sendable, Equatable, CaseIterable {
    /// No stage (not asleep and not scored).
    case undefined = 0
    /// Awake (also every worn daytime slot).
    case awake = 1
    /// Light sleep (N1/N2).
    case light = 2
    /// Deep sleep (N3, slow-wave).
    case deep = 3
    /// REM sleep.
    case rem = 4
}

/// One stretch of a single sleep stage, UTC Unix seconds, `start` inclusive, `end` exclusive.
public struct SleepStageSegment: Sendable, Equatable {
    /// The stage.
    public var stage: SleepStage
    /// First second of the stretch.
    public var start: Int64
    /// First second after the stretch.
    public var end: Int64

    /// Creates a segment.
    public init(stage: SleepStage, start: Int64, end: Int64) {
        self.stage = stage
        self.start = start
        self.end = end
    }
}

/// A night's sleep or a nap as the model scheduled it: the ground truth a sleep summary should find.
public struct SleepPeriod: Sendable, Equatable {
    /// Night or nap.
    public enum Kind: Sendable, Equatable {
        /// The main sleep from bedtime to wake time.
        case night
        /// A daytime nap.
        case nap
    }

    /// Night or nap.
    public var kind: Kind
    /// Lights out (UTC Unix seconds); the first segment is the awake time before falling asleep.
    public var start: Int64
    /// Getting up (UTC Unix seconds), exclusive.
    public var end: Int64
    /// The stages from `start` to `end`, in order, without gaps, adjacent segments differ in stage.
    public var segments: [SleepStageSegment]

    /// Creates a sleep period.
    public init(kind: Kind, start: Int64, end: Int64, segments: [SleepStageSegment]) {
        self.kind = kind
        self.start = start
        self.end = end
        self.segments = segments
    }

    /// Index of the segment that contains `t`, or `nil` when `t` is outside the period.
    func segmentIndex(at t: Int64) -> Int? {
        guard t >= start, t < end, !segments.isEmpty else { return nil }
        var low = 0
        var high = segments.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if segments[middle].start <= t { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// The stage at `t`, or `nil` when `t` is outside the period.
    public func stage(at t: Int64) -> SleepStage? {
        segmentIndex(at: t).map { segments[$0].stage }
    }

    /// Total seconds spent in `stage` within the period.
    public func seconds(in stage: SleepStage) -> Int64 {
        segments.reduce(0) { $0 + ($1.stage == stage ? $1.end - $1.start : 0) }
    }
}

/// A walk, run or bike ride as the model scheduled it (UTC Unix seconds, `end` exclusive).
public struct ActivityPeriod: Sendable, Equatable {
    /// Walk, run or ride.
    public var kind: ActivityKind
    /// Start.
    public var start: Int64
    /// End, exclusive.
    public var end: Int64

    /// Creates an activity period.
    public init(kind: ActivityKind, start: Int64, end: Int64) {
        self.kind = kind
        self.start = start
        self.end = end
    }
}

/// The kinds of exercise the model simulates, with the bracelet's activity-type code.
public enum ActivityKind: Sendable, Equatable, CaseIterable {
    /// Walking: activity type 2.
    case walk
    /// Running: activity type 4.
    case run
    /// Cycling: activity type 6.
    case cycle

    /// The activity type the bracelet records: 2 walk, 4 run, 6 cycle.
    public var activityCode: Int {
        switch self {
        case .walk: 2
        case .run: 4
        case .cycle: 6
        }
    }
}

/// A period when the bracelet is off the wrist (shower, charging): wearing 0, no body values.
public struct OffWristPeriod: Sendable, Equatable {
    /// Taken off (UTC Unix seconds).
    public var start: Int64
    /// Put back on (UTC Unix seconds), exclusive.
    public var end: Int64
    /// Whether the bracelet was on its charger (the battery level rises).
    public var isCharging: Bool

    /// Creates an off-wrist period.
    public init(start: Int64, end: Int64, isCharging: Bool) {
        self.start = start
        self.end = end
        self.isCharging = isCharging
    }
}
