/// Everything the model decides once, up front, from the schedule and the seed: sleep periods with
/// their stages, activities, off-wrist periods and the battery. Slots and beats are then computed
/// from this plan at any time, in any order.
struct PhysiologyPlan: Sendable {
    var sleepPeriods: [SleepPeriod] = []
    var activities: [ActivityPeriod] = []
    var offWristPeriods: [OffWristPeriod] = []
    var battery: BatteryTimeline

    init(start: Int64, end: Int64, seed: UInt64, clock: LocalClock, schedule: DailySchedule,
         battery behaviour: BatteryBehaviour) {
        battery = BatteryTimeline(start: start, level: behaviour.initialPercent,
                                  percentPerSecond: -behaviour.drainPercentPerHour / 3_600)
        let firstDay = clock.localDay(of: start)
        let lastDay = clock.localDay(of: end - 1)
        let jitter = Double(schedule.jitterMinutes * 60)
        var showers: [OffWristPeriod] = []
        // Start a day early: the night before the first day reaches into the range.
        for day in (firstDay - 1)...lastDay {
            var random = SplitMix64(seed: SplitMix64.scramble(seed ^ SplitMix64.scramble(UInt64(bitPattern: day))))
            let dayIndex = Int(day - firstDay)
            func jittered(_ t: Int64, _ fraction: Double = 1) -> Int64 {
                t + Int64((random.uniform(-1...1) * jitter * fraction).rounded())
            }
            // The night that starts on this day.
            let bedDay = schedule.bedtime.hour < 12 ? day + 1 : day
            let bed = jittered(clock.utc(day: bedDay, minutesAfterMidnight: schedule.bedtime.minutesAfterMidnight))
            let wake = jittered(clock.utc(day: day + 1, minutesAfterMidnight: schedule.wakeTime.minutesAfterMidnight))
            if wake - bed >= 3_600 {
                let stages = SleepStager.segments(start: bed, end: wake, isNap: false, random: &random)
                sleepPeriods.append(SleepPeriod(kind: .night, start: bed, end: wake, segments: stages))
            }
            guard dayIndex >= 0 else { continue }
            // The shower: a short daily off-wrist period.
            let showerStart = jittered(clock.utc(day: day, minutesAfterMidnight: schedule.offWrist.minutesAfterMidnight), 0.3)
            let showerLength = Int64(schedule.offWristMinutes * 60) + Int64(random.uniform(-120...120))
            showers.append(OffWristPeriod(start: showerStart, end: showerStart + max(60, showerLength), isCharging: false))
            for period in schedule.periods where period.days.contains(dayIndex) {
                let planned = clock.utc(day: day, minutesAfterMidnight: period.start.minutesAfterMidnight)
                let begin = jittered(planned, 0.5)
                let length = Double(period.durationMinutes * 60) * random.uniform(0.9...1.1)
                let finish = begin + max(60, Int64(length.rounded()))
                switch period.kind {
                case .nap:
                    let stages = SleepStager.segments(start: begin, end: finish, isNap: true, random: &random)
                    sleepPeriods.append(SleepPeriod(kind: .nap, start: begin, end: finish, segments: stages))
                case .walk: activities.append(ActivityPeriod(kind: .walk, start: begin, end: finish))
                case .run: activities.append(ActivityPeriod(kind: .run, start: begin, end: finish))
                case .cycle: activities.append(ActivityPeriod(kind: .cycle, start: begin, end: finish))
                }
            }
        }
        sleepPeriods = sleepPeriods.filter { $0.end > start && $0.start < end }.sorted { $0.start < $1.start }
        activities = activities.filter { $0.end > start && $0.start < end }.sorted { $0.start < $1.start }
        // Whole unworn days: one off-wrist period each, in which that day's shower falls.
        for date in schedule.unwornDates {
            let day = Int64(date.dayNumber)
            showers.append(OffWristPeriod(start: clock.utc(day: day, minutesAfterMidnight: 0),
                                          end: clock.utc(day: day + 1, minutesAfterMidnight: 0), isCharging: false))
        }
        showers = showers.filter { $0.end > start && $0.start < end }.sorted { $0.start < $1.start }

        // Walk through the off-wrist periods in time order: charge when the level is low.
        let drain = -behaviour.drainPercentPerHour / 3_600
        let charge = behaviour.chargePercentPerMinute / 60
        for var period in showers {
            if let last = offWristPeriods.last, period.start < last.end { continue }
            if period.start >= start, battery.level(at: Double(period.start)) < behaviour.chargeBelowPercent {
                let level = battery.level(at: Double(period.start))
                let secondsToFull = Int64(((100 - level) / charge).rounded(.up))
                period.end = max(period.end, period.start + secondsToFull + 180)
                period.isCharging = true
                battery.change(at: period.start, percentPerSecond: charge)
                battery.change(at: period.start + secondsToFull, percentPerSecond: 0)
                battery.change(at: period.end, percentPerSecond: drain)
            }
            offWristPeriods.append(period)
        }
    }
}
