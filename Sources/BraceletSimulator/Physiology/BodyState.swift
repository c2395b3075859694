import Foundation

/// What the wearer is doing at one instant: worn or not, asleep in which stage, exercising how hard.
struct BodyState {
    /// Where the wearer is in a sleep period.
    struct Sleep {
        /// Index into the plan's sleep periods.
        var period: Int
        /// Index of the current stage segment.
        var segment: Int
        /// Current stage.
        var stage: SleepStage
    }

    /// How much an activity drives the body right now.
    struct Exertion {
        /// The activity whose effect is strongest (during it or recovering from it).
        var kind: ActivityKind
        /// 0 (no effect) ... 1 (fully in the activity's steady state).
        var weight: Double
        /// Minutes since the activity started (capped at its length while recovering).
        var minutesIn: Double
    }

    /// Whether the bracelet is on the wrist.
    var worn: Bool
    /// The sleep period the wearer is in, if asleep (or lying awake in bed).
    var sleep: Sleep?
    /// The last sleep period that started at or before now, whether or not it has ended.
    var lastSleepPeriod: Int?
    /// The strongest activity effect, if any.
    var exertion: Exertion?
    /// Local hour of day, 0 ..< 24.
    var localHour: Double

    /// The exertion weight, 0 when there is none.
    var exertionWeight: Double { exertion?.weight ?? 0 }
}

extension PhysiologyModel {
    /// Time constants (seconds) for the body settling into an activity and recovering from it.
    private static func responseTimes(_ kind: ActivityKind) -> (rise: Double, recovery: Double) {
        switch kind {
        case .walk: (60, 120)
        case .run: (90, 240)
        case .cycle: (90, 180)
        }
    }

    /// Index of the last element whose start is at or before `t`, by binary search over sorted starts.
    @inline(__always)
    static func lastIndex(startingAtOrBefore t: Double, count: Int, start: (Int) -> Int64) -> Int? {
        var low = 0
        var high = count - 1
        guard count > 0, Double(start(0)) <= t else { return nil }
        while low < high {
            let middle = (low + high + 1) / 2
            if Double(start(middle)) <= t { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// The off-wrist period containing `t`, if any.
    func offWristIndex(at t: Double) -> Int? {
        let periods = plan.offWristPeriods
        guard let i = Self.lastIndex(startingAtOrBefore: t, count: periods.count, start: { periods[$0].start }),
              t < Double(periods[i].end) else { return nil }
        return i
    }

    /// The wearer's state at `t` (UTC Unix seconds, fractional).
    func bodyState(at t: Double) -> BodyState {
        let worn = offWristIndex(at: t) == nil
        let periods = plan.sleepPeriods
        let last = Self.lastIndex(startingAtOrBefore: t, count: periods.count, start: { periods[$0].start })
        var sleep: BodyState.Sleep?
        if let last, let segment = periods[last].segmentIndex(at: Int64(floor(t))) {
            sleep = BodyState.Sleep(period: last, segment: segment, stage: periods[last].segments[segment].stage)
        }
        return BodyState(worn: worn, sleep: sleep, lastSleepPeriod: last,
                         exertion: sleep == nil ? exertion(at: t) : nil, localHour: clock.localHour(at: t))
    }

    /// The strongest effect of the current or a recently finished activity at `t`.
    func exertion(at t: Double) -> BodyState.Exertion? {
        let activities = plan.activities
        guard let last = Self.lastIndex(startingAtOrBefore: t, count: activities.count, start: { activities[$0].start })
        else { return nil }
        var best: BodyState.Exertion?
        for index in stride(from: last, through: max(0, last - 1), by: -1) {
            let activity = activities[index]
            let begin = Double(activity.start)
            let finish = Double(activity.end)
            let times = Self.responseTimes(activity.kind)
            let candidate: BodyState.Exertion
            if t < finish {
                candidate = BodyState.Exertion(kind: activity.kind, weight: 1 - exp(-(t - begin) / times.rise),
                                               minutesIn: (t - begin) / 60)
            } else {
                let since = t - finish
                guard since < 8 * times.recovery else { continue }
                let atEnd = 1 - exp(-(finish - begin) / times.rise)
                candidate = BodyState.Exertion(kind: activity.kind, weight: atEnd * exp(-since / times.recovery),
                                               minutesIn: (finish - begin) / 60)
            }
            if candidate.weight > (best?.weight ?? 0) { best = candidate }
        }
        return best
    }

    /// Incidental daytime movement (pottering about), 0 ... 1.
    @inline(__always)
    func fidget(at t: Double) -> Double {
        max(0, noise.smooth(.fidget, at: t, period: 600) - 0.3) / 0.7
    }
}
