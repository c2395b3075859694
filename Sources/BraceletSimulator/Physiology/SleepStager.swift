/// Builds the stage sequence of one sleep period: a few minutes awake in bed before falling asleep,
/// ~90-minute cycles light -> deep -> light -> REM with most deep sleep in the early cycles, more
/// REM in the late ones and brief awakenings, and a few minutes awake in bed before getting up.
enum SleepStager {
    static func segments(start: Int64, end: Int64, isNap: Bool, random: inout SplitMix64) -> [SleepStageSegment] {
        var segments: [SleepStageSegment] = []
        var t = start
        // Lying awake after the final awakening: 2-10 min after a night, 1-3 min after a nap.
        let lyingAwake = Int64((isNap ? random.uniform(60...180) : random.uniform(120...600)).rounded())
        var limit = max(start, end - lyingAwake)
        func add(_ stage: SleepStage, seconds: Double) {
            guard t < limit else { return }
            let next = min(limit, t + max(0, Int64(seconds.rounded())))
            guard next > t else { return }
            if let last = segments.last, last.stage == stage {
                segments[segments.count - 1].end = next
            } else {
                segments.append(SleepStageSegment(stage: stage, start: t, end: next))
            }
            t = next
        }
        // Falling asleep takes a few minutes.
        add(.awake, seconds: isNap ? random.uniform(120...420) : random.uniform(360...1_200))
        var cycle = 0.0
        while t < limit {
            let length = min(110, max(75, 90 + 8 * random.nextGaussian())) * 60
            let deep = max(0.03, 0.42 - 0.13 * cycle)
            let rem = min(0.45, 0.08 + 0.09 * cycle)
            let light = 1 - deep - rem
            add(.light, seconds: length * light * 0.55)
            add(.deep, seconds: length * deep)
            add(.light, seconds: length * light * 0.45)
            add(.rem, seconds: length * rem)
            // A brief awakening between cycles, about every other cycle.
            if random.nextUnit() < 0.5 {
                add(.awake, seconds: random.uniform(60...240))
            }
            cycle += 1
        }
        limit = end
        add(.awake, seconds: Double(end - t))
        return segments
    }
}
