import BraceletDecoder

/// One sleep-stage sample at its own interval.
struct StageSample: Sendable, Equatable {
    var start: Int64
    var interval: Int64
    var stage: Int
    /// The wearer was still in bed: activity "rest" (7), or a source that reports no activity.
    /// Awake samples are attached to a session only while in bed; awake while up and about
    /// (any other activity) is daytime.
    var inBed: Bool = true
    var end: Int64 { start + interval }
    var isSleep: Bool { stage >= 2 && stage <= 4 }
    var isAwake: Bool { stage == 1 }
    /// Awake while lying in bed: what can be attached to a session.
    var isAwakeInBed: Bool { stage == 1 && inBed }
    /// A scored stage (awake or asleep), as opposed to 0, "undefined".
    var isScored: Bool { stage >= 1 && stage <= 4 }
}

/// A group of sleep samples separated by at most 60 minutes, with the awake it absorbed at either
/// end. Clusters with less than 15 minutes of sleep are kept (so later data can grow them) but are
/// not sessions.
struct SleepCluster: Sendable, Equatable {
    var start: Int64
    var stop: Int64
    var firstSleep: Int64
    var lastSleepEnd: Int64
    var sleepSeconds: Int64
    var isSession: Bool { sleepSeconds >= SleepSessionDetector.minimumSleepSeconds }
}

/// Finds sleep sessions in stage samples (see Definitions.md, "Sleep sessions").
enum SleepSessionDetector {
    /// Longest separation (awake or no data) inside one session.
    static let maximumSeparationSeconds: Int64 = 3600
    /// Longest awake run attached at either end; a longer run is daytime, not time in bed.
    static let maximumAttachedAwakeSeconds: Int64 = 3600
    /// Least sleep a session needs.
    static let minimumSleepSeconds: Int64 = 900
    /// Least sleep a main sleep needs (3 h, the rule Oura uses for a "long sleep"): a shorter
    /// session is a nap however the day's data looks.
    static let mainSleepMinimumSeconds = 3 * 3600

    /// All clusters in `samples` (sorted by start), sorted by start.
    static func clusters(in samples: ArraySlice<StageSample>) -> [SleepCluster] {
        var result: [SleepCluster] = []
        var firstIndex = -1
        var lastIndex = -1
        var lastSleepEnd: Int64 = 0
        var sleepSeconds: Int64 = 0
        for i in samples.indices where samples[i].isSleep {
            let s = samples[i]
            if firstIndex >= 0, s.start - lastSleepEnd <= maximumSeparationSeconds {
                lastIndex = i
                lastSleepEnd = max(lastSleepEnd, s.end)
                sleepSeconds += s.interval
                continue
            }
            if firstIndex >= 0 {
                result.append(finish(samples, firstIndex, lastIndex, lastSleepEnd, sleepSeconds))
            }
            firstIndex = i
            lastIndex = i
            lastSleepEnd = s.end
            sleepSeconds = s.interval
        }
        if firstIndex >= 0 {
            result.append(finish(samples, firstIndex, lastIndex, lastSleepEnd, sleepSeconds))
        }
        return result
    }

    private static func finish(_ samples: ArraySlice<StageSample>, _ first: Int, _ last: Int, _ lastSleepEnd: Int64,
                               _ sleepSeconds: Int64) -> SleepCluster {
        let firstSleep = samples[first].start
        // Leading awake: contiguous awake samples right before the first sleep.
        var boundary = firstSleep
        var j = first - 1
        while j >= samples.startIndex, firstSleep - boundary <= maximumAttachedAwakeSeconds, samples[j].isAwakeInBed, samples[j].end >= boundary, samples[j].start < boundary {
            boundary = samples[j].start
            j -= 1
        }
        let start = firstSleep - boundary <= maximumAttachedAwakeSeconds ? boundary : firstSleep
        // Trailing awake: contiguous awake samples right after the last sleep.
        boundary = lastSleepEnd
        j = last + 1
        while j < samples.endIndex, boundary - lastSleepEnd <= maximumAttachedAwakeSeconds, samples[j].start <= boundary {
            if samples[j].end > boundary {
                guard samples[j].isAwakeInBed else { break }
                boundary = samples[j].end
            }
            j += 1
        }
        let stop = boundary - lastSleepEnd <= maximumAttachedAwakeSeconds ? boundary : lastSleepEnd
        return SleepCluster(start: start, stop: stop, firstSleep: firstSleep, lastSleepEnd: lastSleepEnd,
                            sleepSeconds: sleepSeconds)
    }

    /// Builds the session of a cluster from the stage samples inside it (`isMainSleep` false).
    static func session(for cluster: SleepCluster, samples: ArraySlice<StageSample>, recordDate: String,
                        tzOffset: Int, truncated: Bool) -> SleepSession {
        var secs = [Int64](repeating: 0, count: 5)
        var waso: Int64 = 0
        var transitions = [Int](repeating: 0, count: 8)
        var previousStage: Int?
        var slots: [SleepSlot] = []
        for s in samples where s.start >= cluster.start && s.start < cluster.stop {
            slots.append(SleepSlot(date: s.start, intervalSeconds: Int(s.interval), sleepType: s.stage))
            guard (1...4).contains(s.stage) else { continue }
            secs[s.stage] += s.interval
            if s.isAwake, s.start >= cluster.firstSleep, s.start < cluster.lastSleepEnd { waso += s.interval }
            if let p = previousStage, p != s.stage {
                switch (p, s.stage) {
                case (3, 2): transitions[0] += 1
                case (3, 4): transitions[1] += 1
                case (2, 3): transitions[2] += 1
                case (2, 4): transitions[3] += 1
                case (4, 3): transitions[4] += 1
                case (4, 2): transitions[5] += 1
                case (_, 1): transitions[6] += 1
                default: transitions[7] += 1 // awake -> sleep
                }
            }
            previousStage = s.stage
        }
        let totalSleep = Int(secs[2] + secs[3] + secs[4])
        let timeInBed = Int(cluster.stop - cluster.start)
        return SleepSession(
            recordDate: recordDate, startSession: cluster.start, stopSession: cluster.stop, tzOffset: tzOffset,
            totalSleepDuration: totalSleep,
            timeToSleep: Int(cluster.firstSleep - cluster.start), timeToWakeUp: Int(cluster.stop - cluster.lastSleepEnd),
            totalSecsLight: Int(secs[2]), totalSecsDeep: Int(secs[3]), totalSecsAwake: Int(secs[1]), totalSecsREM: Int(secs[4]),
            totalDeepToLightTransitions: transitions[0], totalDeepToREMTransitions: transitions[1],
            totalLightToDeepTransitions: transitions[2], totalLightToREMTransitions: transitions[3],
            totalREMToDeepTransitions: transitions[4], totalREMToLightTransitions: transitions[5],
            totalSleepToAwakeTransitions: transitions[6], totalAwakeToSleepTransitions: transitions[7],
            timeInBed: timeInBed, wakeAfterSleepOnset: Int(waso),
            sleepEfficiency: percent(totalSleep, of: timeInBed),
            restorativeSleepPercent: percent(Int(secs[3] + secs[4]), of: totalSleep),
            awakePercent: percent(Int(secs[1]), of: timeInBed),
            isMainSleep: false, truncated: truncated, slots: slots)
    }
}

/// round(part / whole x 100), nil when whole is 0.
func percent(_ part: Int, of whole: Int) -> Int? {
    guard whole > 0 else { return nil }
    return Int((Double(part) * 100 / Double(whole)).rounded())
}
