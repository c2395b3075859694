import Foundation

/// The continuous signals of the model, as functions of time and body state. Slots sample them
/// (adding per-slot measurement noise); beats follow the heart rate and breath rate.
extension PhysiologyModel {
    /// Heart-rate offset from the resting heart rate per sleep stage.
    private static func sleepHeartRateOffset(_ stage: SleepStage) -> Double {
        switch stage {
        case .undefined: 0
        case .awake: 8
        case .light: 1
        case .deep: -3
        case .rem: 5
        }
    }

    /// Steady-state heart rate of an activity as a fraction of the heart-rate reserve.
    private static func reserveFraction(_ kind: ActivityKind) -> Double {
        switch kind {
        case .walk: 0.42
        case .run: 0.72
        case .cycle: 0.55
        }
    }

    /// Heart rate in beats per minute (fractional, before measurement noise).
    func heartRate(at t: Double, _ state: BodyState) -> Double {
        let resting = Double(person.restingHeartRate)
        var rate: Double
        if let sleep = state.sleep {
            let period = plan.sleepPeriods[sleep.period]
            let night = (t - Double(period.start)) / Double(max(1, period.end - period.start))
            rate = resting + Self.sleepHeartRateOffset(sleep.stage) - 3 * night
            if sleep.segment > 0 {
                // The heart settles into a new stage over a minute or two rather than jumping.
                let previous = Self.sleepHeartRateOffset(period.segments[sleep.segment - 1].stage)
                let since = t - Double(period.segments[sleep.segment].start)
                rate += (previous - Self.sleepHeartRateOffset(sleep.stage)) * exp(-since / 90)
            }
            rate += 1.5 * noise.smooth(.heartRate, at: t, period: 300)
        } else {
            rate = resting + 11 + 3 * cos(2 * Double.pi * (state.localHour - 15) / 24)
                + 3 * noise.smooth(.heartRate, at: t, period: 420) + 5 * fidget(at: t)
        }
        if let exertion = state.exertion {
            let reserve = Double(person.maxHeartRate - person.restingHeartRate)
            var target = resting + Self.reserveFraction(exertion.kind) * reserve
                + 4 * noise.smooth(.heartRateExercise, at: t, period: 180)
            if exertion.kind == .run { target += 0.12 * exertion.minutesIn }  // cardiac drift
            rate += exertion.weight * (target - rate)
        }
        return min(Double(person.maxHeartRate), max(35, rate))
    }

    /// Breath rate in breaths per minute (before measurement noise).
    func breathRate(at t: Double, _ state: BodyState) -> Double {
        var rate: Double
        if let sleep = state.sleep {
            switch sleep.stage {
            case .deep: rate = 12.5 + 0.25 * noise.smooth(.breath, at: t, period: 600)
            case .light: rate = 13.5 + 0.7 * noise.smooth(.breath, at: t, period: 300)
            case .rem: rate = 15 + 1.4 * noise.smooth(.breath, at: t, period: 120)
            case .awake, .undefined: rate = 14 + 1.0 * noise.smooth(.breath, at: t, period: 300)
            }
        } else {
            rate = 14 + 1.2 * noise.smooth(.breath, at: t, period: 300) + 0.4 * fidget(at: t)
        }
        if let exertion = state.exertion {
            let target: Double = switch exertion.kind {
            case .walk: 19
            case .run: 30 + 0.05 * exertion.minutesIn
            case .cycle: 24
            }
            rate += exertion.weight * (target + 1.5 * noise.smooth(.heartRateExercise, at: t, period: 240) - rate)
        }
        return rate
    }

    /// Skin temperature in °C: ~33.4 awake, rising towards ~35.2 during sleep, falling after waking.
    func skinTemperature(at t: Double, _ state: BodyState) -> Double {
        func awakeLevel(_ t: Double) -> Double {
            33.4 + 0.3 * noise.smooth(.skin, at: t, period: 1_800)
        }
        func sleepLevel(_ t: Double, since start: Double) -> Double {
            let awake = awakeLevel(t)
            let target = 35.2 + 0.15 * noise.smooth(.skin, at: t + 7_777, period: 2_400)
            return awake + (target - awake) * (1 - exp(-(t - start) / 2_400))
        }
        var level = awakeLevel(t)
        if let last = state.lastSleepPeriod {
            let period = plan.sleepPeriods[last]
            let start = Double(period.start)
            let finish = Double(period.end)
            if t < finish {
                level = sleepLevel(t, since: start)
            } else if t - finish < 3 * 3_600 {
                let surplus = sleepLevel(finish, since: start) - awakeLevel(finish)
                level += surplus * exp(-(t - finish) / 1_800)
            }
        }
        level -= 0.5 * state.exertionWeight  // sweating cools the wrist
        return min(35.6, max(33.0, level))
    }

    /// Core body temperature in °C (V2): circadian swing peaking late afternoon, lower asleep,
    /// higher in exercise.
    func coreTemperature(at t: Double, _ state: BodyState) -> Double {
        var level = 36.85 + 0.3 * cos(2 * Double.pi * (state.localHour - 17) / 24)
            + 0.06 * noise.smooth(.core, at: t, period: 1_200)
        if state.sleep != nil { level -= 0.12 }
        if let exertion = state.exertion {
            let rise: Double = switch exertion.kind {
            case .walk: 0.2
            case .run: 0.45
            case .cycle: 0.35
            }
            level += exertion.weight * rise
        }
        return min(37.4, max(36.2, level))
    }

    /// Electrodermal activity in µS (V2): low asleep with "storms" in deep sleep, stress bumps in the
    /// day, sweat in exercise.
    func electrodermalActivity(at t: Double, _ state: BodyState) -> Double {
        var level: Double
        if let sleep = state.sleep {
            level = 0.5 * exp(0.3 * noise.smooth(.eda, at: t, period: 3_600))
            if sleep.stage == .deep {
                let block = Int64(floor(t / 300))
                if noise.unit(.edaStorm, block) < 0.35 { level += 1.5 + noise.unit(.edaStorm, block + 1_000_003) }
            }
        } else {
            level = 1.6 * exp(0.35 * noise.smooth(.eda, at: t, period: 3_600))
                + 3 * max(0, noise.smooth(.edaStress, at: t, period: 1_200) - 0.55) / 0.45
        }
        if let exertion = state.exertion {
            let sweat: Double = switch exertion.kind {
            case .walk: 2.5
            case .run: 7
            case .cycle: 5
            }
            level += exertion.weight * sweat
        }
        return level
    }
}
