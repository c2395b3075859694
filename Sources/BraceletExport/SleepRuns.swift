import BraceletSummaries

/// The sleep stages of the summaries (`SleepSlot.sleepType`).
public enum SleepStage: Int, Sendable, CaseIterable {
    /// 1: awake.
    case awake = 1
    /// 2: light sleep.
    case light = 2
    /// 3: deep sleep.
    case deep = 3
    /// 4: REM sleep.
    case rem = 4

    /// Name for people.
    public var label: String {
        switch self {
        case .awake: "Awake"
        case .light: "Light"
        case .deep: "Deep"
        case .rem: "REM"
        }
    }
}

/// One run of consecutive samples of the same stage, without gaps.
public struct StageRun: Sendable, Equatable {
    /// The stage.
    public var stage: SleepStage
    /// Run start, Unix seconds.
    public var start: Int64
    /// Run end (exclusive), Unix seconds.
    public var end: Int64
}

extension SleepSession {
    /// The session's samples merged into runs of one stage. Undefined samples (type 0, no data) and
    /// gaps between samples end a run and are not part of any run.
    public var stageRuns: [StageRun] {
        var runs: [StageRun] = []
        for slot in slots.sorted(by: { $0.date < $1.date }) {
            guard let stage = SleepStage(rawValue: slot.sleepType), slot.intervalSeconds > 0 else { continue }
            let end = slot.date + Int64(slot.intervalSeconds)
            if let last = runs.last, last.stage == stage, last.end == slot.date {
                runs[runs.count - 1].end = end
            } else {
                runs.append(StageRun(stage: stage, start: slot.date, end: end))
            }
        }
        return runs
    }
}
