import BraceletDecoder

/// How much of a local day the data covers, and whether the day is over: what tells a complete day
/// from a partial one (see Definitions.md, "Coverage and complete days").
public struct DayCoverage: Sendable, Hashable, Codable {
    /// First second of the next local day, Unix seconds: when the day is over.
    public var dayEnd: Int64
    /// Minutes in the local day (1380, 1440 or 1500 on daylight-saving days).
    public var dayMinutes: Int
    /// Minutes of the day in which any sample starts or lasts (worn or not).
    public var recordedMinutes: Int
    /// Minutes of the day covered by a sample taken on the wrist (`wearing > 0`, or wearing unknown).
    public var wornMinutes: Int
    /// Whether the day had ended in its own time zone when the summary was computed.
    public var dayIsOver: Bool
    /// The day is over and at least ``minimumRecordedFraction`` of its minutes were recorded.
    public var isComplete: Bool

    /// Share of a day's minutes that must be recorded for the day to be complete: 90 %, so that
    /// an hour or two on the charger still leaves a whole day, while a day on which recording began
    /// or ended (the first and last day of a history, today) does not count as one.
    public static let minimumRecordedFraction = 0.9

    /// Creates a coverage record; `isComplete` follows from the other values.
    public init(dayEnd: Int64, dayMinutes: Int, recordedMinutes: Int, wornMinutes: Int, dayIsOver: Bool) {
        self.dayEnd = dayEnd
        self.dayMinutes = dayMinutes
        self.recordedMinutes = recordedMinutes
        self.wornMinutes = wornMinutes
        self.dayIsOver = dayIsOver
        self.isComplete = Self.isComplete(recordedMinutes: recordedMinutes, dayMinutes: dayMinutes, dayIsOver: dayIsOver)
    }

    /// The completeness rule: over, and recorded minutes >= 90 % of the day's minutes.
    public static func isComplete(recordedMinutes: Int, dayMinutes: Int, dayIsOver: Bool) -> Bool {
        dayIsOver && Double(recordedMinutes) >= minimumRecordedFraction * Double(dayMinutes)
    }

    /// Whether the day is complete at `now` (Unix seconds): a stored summary computed before the
    /// day ended becomes complete once it is over, if enough of it was recorded.
    public func isComplete(at now: Int64) -> Bool {
        Self.isComplete(recordedMinutes: recordedMinutes, dayMinutes: dayMinutes, dayIsOver: now >= dayEnd)
    }

    /// Whether the day counts as a whole day at `now`, and if not, why: the one rule every table,
    /// report, export and score applies (``isComplete(at:)``).
    public func status(at now: Int64) -> Status {
        if now < dayEnd { return .notOver }
        return isComplete(at: now) ? .complete : .partial(recordedMinutes: recordedMinutes, dayMinutes: dayMinutes)
    }

    /// A day's standing at a moment: complete, not over yet, or over with too little recorded.
    public enum Status: Sendable, Hashable {
        /// Over, with at least 90 % of its minutes recorded.
        case complete
        /// Not over yet (today, in the day's zone): its values are so far.
        case notOver
        /// Over, but fewer than 90 % of its minutes recorded (recording began or ended that day).
        case partial(recordedMinutes: Int, dayMinutes: Int)

        /// Whether the day is complete.
        public var isComplete: Bool { self == .complete }

        /// A word for a narrow column: `whole`, `ongoing` or `partial`.
        public var label: String {
            switch self {
            case .complete: "whole"
            case .notOver: "ongoing"
            case .partial: "partial"
            }
        }

        /// Why an incomplete day does not count (`incomplete: ...`); nil for a complete day.
        public var reason: String? {
            switch self {
            case .complete: nil
            case .notOver: "incomplete: the day is not over yet"
            case let .partial(recorded, minutes):
                "incomplete: \(recorded) of \(minutes) minutes recorded (a complete day needs \(Int(DayCoverage.minimumRecordedFraction * 100)) %)"
            }
        }
    }

    /// Measures the minutes of `[dayStart, dayEnd)` that `samples` cover, at time `now`.
    static func measure(samples: [Slot], dayStart: Int64, dayEnd: Int64, now: Int64, isWorn: (Slot) -> Bool) -> DayCoverage {
        let minutes = Int((dayEnd - dayStart + 59) / 60)
        var recorded = [Bool](repeating: false, count: minutes)
        var worn = [Bool](repeating: false, count: minutes)
        for s in samples {
            let from = max(s.start, dayStart)
            let to = min(s.start + Int64(s.intervalSeconds), dayEnd)
            guard to > from else { continue }
            let first = Int((from - dayStart) / 60)
            let last = min(minutes - 1, Int((to - 1 - dayStart) / 60))
            guard first <= last else { continue }
            let onWrist = isWorn(s)
            for m in first...last {
                recorded[m] = true
                if onWrist { worn[m] = true }
            }
        }
        return DayCoverage(dayEnd: dayEnd, dayMinutes: minutes, recordedMinutes: recorded.filter { $0 }.count,
                           wornMinutes: worn.filter { $0 }.count, dayIsOver: now >= dayEnd)
    }
}
