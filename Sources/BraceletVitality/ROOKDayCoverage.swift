import BraceletSummaries

/// How much of a day a ROOK day's summaries cover, as `bracelet export --format rook` writes it for
/// every bracelet day (`"coverage": {...}` beside `date`), so that `score --rook` leaves out the
/// same partial days (the first day of a history, today) as `score --db` does.
///
/// A day is complete when it is over (the time of scoring is at or after `day_end`) and at least
/// 90 % of `day_minutes` were recorded: the rule of ``DayCoverage``, applied at the time of
/// scoring, so a day exported while it was still running counts once it is over if enough of it
/// was recorded, exactly as its stored summary does. `is_complete` is that verdict at the time of
/// the export, for readers of the file; the score re-applies the rule to the counts. A day without
/// `coverage` (any other ROOK source gives whole-day summaries) is taken as complete.
public struct ROOKDayCoverage: Sendable, Hashable, Codable {
    /// First second of the next local day, Unix seconds (`day_end`): when the day is over.
    public var dayEnd: Int64
    /// Minutes in the local day (`day_minutes`: 1380, 1440 or 1500).
    public var dayMinutes: Int
    /// Minutes of the day with any recorded sample (`recorded_minutes`).
    public var recordedMinutes: Int
    /// Minutes of the day recorded on the wrist (`worn_minutes`), when known.
    public var wornMinutes: Int?
    /// Whether the day was complete when the file was written (`is_complete`); informational.
    public var isComplete: Bool?

    /// JSON names.
    enum CodingKeys: String, CodingKey, Sendable, CaseIterable {
        case dayEnd = "day_end"
        case dayMinutes = "day_minutes"
        case recordedMinutes = "recorded_minutes"
        case wornMinutes = "worn_minutes"
        case isComplete = "is_complete"
    }

    /// Creates a coverage record.
    public init(dayEnd: Int64, dayMinutes: Int, recordedMinutes: Int, wornMinutes: Int? = nil, isComplete: Bool? = nil) {
        self.dayEnd = dayEnd
        self.dayMinutes = dayMinutes
        self.recordedMinutes = recordedMinutes
        self.wornMinutes = wornMinutes
        self.isComplete = isComplete
    }

    /// The record of a bracelet day's coverage, with its completeness when it was computed.
    public init(_ coverage: DayCoverage) {
        self.init(dayEnd: coverage.dayEnd, dayMinutes: coverage.dayMinutes, recordedMinutes: coverage.recordedMinutes,
                  wornMinutes: coverage.wornMinutes, isComplete: coverage.isComplete)
    }

    /// Decodes from the ROOK file; the counts must be whole numbers in range.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func count(_ key: CodingKeys, upTo limit: Int) throws -> Int? {
            guard let value = try c.decodeWholeNumberIfPresent(forKey: key) else { return nil }
            guard (0...limit).contains(value) else {
                throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "\(value) is not between 0 and \(limit)")
            }
            return value
        }
        guard let end = try c.decodeWholeNumberIfPresent(forKey: .dayEnd) else {
            throw DecodingError.keyNotFound(CodingKeys.dayEnd, .init(codingPath: c.codingPath, debugDescription: "day_end is required"))
        }
        guard let minutes = try count(.dayMinutes, upTo: 1_500) else {
            throw DecodingError.keyNotFound(CodingKeys.dayMinutes, .init(codingPath: c.codingPath, debugDescription: "day_minutes is required"))
        }
        guard let recorded = try count(.recordedMinutes, upTo: minutes) else {
            throw DecodingError.keyNotFound(CodingKeys.recordedMinutes,
                                            .init(codingPath: c.codingPath, debugDescription: "recorded_minutes is required"))
        }
        dayEnd = Int64(end)
        dayMinutes = minutes
        recordedMinutes = recorded
        wornMinutes = try count(.wornMinutes, upTo: minutes)
        isComplete = try c.decodeIfPresent(Bool.self, forKey: .isComplete)
    }

    /// The coverage the window builder applies its completeness rule to.
    public var dayCoverage: DayCoverage {
        DayCoverage(dayEnd: dayEnd, dayMinutes: dayMinutes, recordedMinutes: recordedMinutes, wornMinutes: wornMinutes ?? recordedMinutes,
                    dayIsOver: isComplete ?? false)
    }
}
