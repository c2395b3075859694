/// One measurement slot of a bracelet, decoded: what the bracelet measured from `start` for
/// `intervalSeconds`.
///
/// Every measured field is optional. `nil` means the bracelet recorded no value (its "no value"
/// sentinel), never zero. Units are SI-like and named in each field.
public struct Slot: Sendable, Equatable {
    /// Start of the slot, Unix seconds (UTC).
    public var start: Int64
    /// Length of the slot in seconds (1...3600).
    public var intervalSeconds: Int32
    /// Heart rate, beats per minute.
    public var bpm: Int?
    /// Heart-rate quality 0 (bad) ... 4 (very good).
    public var bpmQuality: Int?
    /// Breath (respiration) rate, breaths per minute.
    public var breath: Double?
    /// Breath-rate quality 0 ... 4.
    public var breathQuality: Int?
    /// Steps taken during the slot.
    public var steps: Int?
    /// Activity type: 0 unspecified, 1 other, 2 walk, 4 run, 6 cycle, 7 rest.
    public var activity: Int?
    /// Speed, metres per second.
    public var speed: Double?
    /// Total energy expenditure during the slot (active + passive), calories (not kcal).
    public var energyCal: Int?
    /// Active energy expenditure during the slot, calories.
    public var activeCal: Int?
    /// Skin temperature, °C.
    public var skinTempC: Double?
    /// Core body temperature, °C (V2 only).
    public var coreTempC: Double?
    /// Blood oxygen saturation, percent (V2 only).
    public var spo2: Int?
    /// SpO2 quality 0 ... 4 (V2 only).
    public var spo2Quality: Int?
    /// Electrodermal activity (skin conductance), microsiemens (V2 only).
    public var edaMicrosiemens: Double?
    /// Sleep stage: 0 undefined, 1 awake, 2 light, 3 deep, 4 REM.
    public var sleepStage: Int?
    /// Wearing state 0 (not worn) ... 4 (worn on the wrist).
    public var wearing: Int?
    /// Battery level, percent.
    public var battery: Int?

    /// A slot with no measured values.
    public init(start: Int64, intervalSeconds: Int32) {
        self.start = start
        self.intervalSeconds = intervalSeconds
    }
}

/// One heart beat from the beat-to-beat (RR interval) file or a Heart Rate notification.
public struct Beat: Sendable, Equatable {
    /// Time of the beat (R peak), Unix milliseconds (UTC).
    public var timeMs: Int64
    /// Interval since the previous beat in milliseconds; `nil` for the first beat after a gap,
    /// which must never be differenced against the beat before the gap.
    public var rrMs: Int?

    public init(timeMs: Int64, rrMs: Int?) {
        self.timeMs = timeMs
        self.rrMs = rrMs
    }
}
