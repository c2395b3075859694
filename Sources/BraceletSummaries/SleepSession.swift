/// One sleep session (Summaries data model `MetricSleepSummery`) computed from sleep-stage samples at their own
/// interval. Every duration is in seconds.
///
/// Left out on purpose (see Definitions.md): `totalSecsDept`, `totalSecsDeptAdjust`,
/// `totalSecsIntensityAdjust` and `consecutiveSleepSlot*ToRemove` have no published meaning;
/// `id`, `readyForSync` and the slots' `isRejected` / `isEdited` are app storage state.
public struct SleepSession: Sendable, Equatable, Codable {
    /// Local date (`YYYY-MM-DD`) of ``stopSession``: the day the session belongs to.
    public var recordDate: String
    /// Session start (first attached awake sample or first sleep sample), Unix seconds.
    public var startSession: Int64
    /// Session end (end of the last attached awake or last sleep sample), Unix seconds.
    public var stopSession: Int64
    /// Seconds east of UTC at ``stopSession`` in the configured time zone.
    public var tzOffset: Int
    /// Light + deep + REM seconds.
    public var totalSleepDuration: Int
    /// Seconds from session start to the first sleep sample.
    public var timeToSleep: Int
    /// Seconds from the end of the last sleep sample to session stop.
    public var timeToWakeUp: Int
    /// Seconds of light sleep (stage 2).
    public var totalSecsLight: Int
    /// Seconds of deep sleep (stage 3).
    public var totalSecsDeep: Int
    /// Seconds awake (stage 1) inside the session, including attached awake at either end.
    public var totalSecsAwake: Int
    /// Seconds of REM sleep (stage 4).
    public var totalSecsREM: Int
    /// Deep -> light changes.
    public var totalDeepToLightTransitions: Int
    /// Deep -> REM changes.
    public var totalDeepToREMTransitions: Int
    /// Light -> deep changes.
    public var totalLightToDeepTransitions: Int
    /// Light -> REM changes.
    public var totalLightToREMTransitions: Int
    /// REM -> deep changes.
    public var totalREMToDeepTransitions: Int
    /// REM -> light changes.
    public var totalREMToLightTransitions: Int
    /// Any sleep stage -> awake changes (the data model's "awake count").
    public var totalSleepToAwakeTransitions: Int
    /// Awake -> any sleep stage changes.
    public var totalAwakeToSleepTransitions: Int
    /// stopSession - startSession, seconds.
    public var timeInBed: Int
    /// Awake seconds between the start of the first and the end of the last sleep sample.
    public var wakeAfterSleepOnset: Int
    /// round(totalSleepDuration / timeInBed x 100); nil when timeInBed is 0.
    @Nullable public var sleepEfficiency: Int?
    /// round((deep + REM) / totalSleepDuration x 100); nil when there is no sleep.
    @Nullable public var restorativeSleepPercent: Int?
    /// round(totalSecsAwake / timeInBed x 100); nil when timeInBed is 0.
    @Nullable public var awakePercent: Int?
    /// True for the main sleep of ``recordDate``: the longest total sleep among its sessions that
    /// have at least 3 h of sleep and are not ``truncated``. The others are naps; a date may have no
    /// main sleep.
    public var isMainSleep: Bool
    /// The recorded stage data begins or ends while the wearer sleeps: no awake or sleep sample lies
    /// before the first sleep sample, or after the last one, so the sleep may have begun earlier or
    /// gone on longer. A truncated session is
    /// never a main sleep (it is not scored as a night).
    public var truncated: Bool
    /// The stage samples of the session, as recorded (no averaging).
    public var slots: [SleepSlot]
}

/// One sleep-stage sample inside a session (Summaries data model `MetricSleepSummerySlots`).
public struct SleepSlot: Sendable, Equatable, Codable {
    /// Sample start, Unix seconds.
    public var date: Int64
    /// Length of the sample, seconds.
    public var intervalSeconds: Int
    /// 0 undefined (no data), 1 awake, 2 light, 3 deep, 4 REM.
    public var sleepType: Int

    /// Creates a slot.
    public init(date: Int64, intervalSeconds: Int, sleepType: Int) {
        self.date = date
        self.intervalSeconds = intervalSeconds
        self.sleepType = sleepType
    }
}
