import BraceletDecoder

/// A wall-clock time of day in the person's own time zone.
public struct LocalTime: Sendable, Equatable, Comparable, CustomStringConvertible {
    /// Hour 0 ... 23.
    public var hour: Int
    /// Minute 0 ... 59.
    public var minute: Int

    /// Creates a local time; `PhysiologyModel` rejects an hour or minute out of range.
    public init(hour: Int, minute: Int = 0) {
        self.hour = hour
        self.minute = minute
    }

    /// Minutes after local midnight.
    public var minutesAfterMidnight: Int { hour * 60 + minute }

    /// `HH:MM`.
    public var description: String {
        (hour < 10 ? "0" : "") + "\(hour):" + (minute < 10 ? "0" : "") + "\(minute)"
    }

    /// Orders by time of day.
    public static func < (lhs: LocalTime, rhs: LocalTime) -> Bool {
        lhs.minutesAfterMidnight < rhs.minutesAfterMidnight
    }

    var isValid: Bool { (0...23).contains(hour) && (0...59).contains(minute) }
}

/// Which days of the simulated range a scheduled period happens on.
public enum DaySelection: Sendable, Equatable {
    /// Every day.
    case everyDay
    /// Only these days, counted from 0 = the local calendar day that contains the model's start.
    case days(Set<Int>)

    func contains(_ dayIndex: Int) -> Bool {
        switch self {
        case .everyDay: true
        case .days(let set): set.contains(dayIndex)
        }
    }
}

/// Something the person does at a fixed local time: a nap, a walk, a run or a bike ride.
public struct ScheduledPeriod: Sendable, Equatable {
    /// What happens in the period.
    public enum Kind: Sendable, Equatable {
        /// A daytime nap (a short sleep period).
        case nap
        /// A walk (~100 steps/min, heart rate ~100-120).
        case walk
        /// A run (~160 steps/min, heart rate ~140-175).
        case run
        /// A bike ride (no steps, heart rate ~120-140).
        case cycle
    }

    /// What happens.
    public var kind: Kind
    /// Planned local start; the model varies it by up to the schedule's jitter.
    public var start: LocalTime
    /// Planned length in minutes (1 ... 600).
    public var durationMinutes: Int
    /// Which days it happens on.
    public var days: DaySelection

    /// Creates a scheduled period.
    public init(_ kind: Kind, at start: LocalTime, minutes durationMinutes: Int, on days: DaySelection = .everyDay) {
        self.kind = kind
        self.start = start
        self.durationMinutes = durationMinutes
        self.days = days
    }
}

/// The person's daily routine in local time. The model turns it into UTC periods day by day, so a
/// daylight-saving change keeps the local bedtime and moves it in UTC.
public struct DailySchedule: Sendable, Equatable {
    /// Lights out. A time before noon means after midnight (the next calendar day).
    public var bedtime: LocalTime
    /// Getting up in the morning.
    public var wakeTime: LocalTime
    /// Each day's bedtime, wake time and period starts vary uniformly by up to this many minutes (0 ... 120).
    public var jitterMinutes: Int
    /// The daily off-wrist period (shower), when the bracelet records no body values.
    public var offWrist: LocalTime
    /// Length of the daily off-wrist period in minutes (1 ... 120).
    public var offWristMinutes: Int
    /// Naps, walks, runs and rides.
    public var periods: [ScheduledPeriod]
    /// Whole local dates the bracelet lies off the wrist, midnight to midnight (left on a table:
    /// it records slots that say "not worn", and no beats).
    public var unwornDates: Set<LocalDate> = []

    /// Creates a schedule; `PhysiologyModel` checks every value and names the one out of range.
    public init(bedtime: LocalTime, wakeTime: LocalTime, jitterMinutes: Int, offWrist: LocalTime,
                offWristMinutes: Int, periods: [ScheduledPeriod]) {
        self.bedtime = bedtime
        self.wakeTime = wakeTime
        self.jitterMinutes = jitterMinutes
        self.offWrist = offWrist
        self.offWristMinutes = offWristMinutes
        self.periods = periods
    }

    /// Bed at 23:00, up at 07:00, shower at 07:30, a lunch walk and an evening walk every day.
    public static let typical = DailySchedule(
        bedtime: LocalTime(hour: 23), wakeTime: LocalTime(hour: 7), jitterMinutes: 15,
        offWrist: LocalTime(hour: 7, minute: 30), offWristMinutes: 12,
        periods: [
            ScheduledPeriod(.walk, at: LocalTime(hour: 12, minute: 30), minutes: 20),
            ScheduledPeriod(.walk, at: LocalTime(hour: 18, minute: 15), minutes: 30),
        ])

    /// The first problem with this schedule, or `nil` when it is usable.
    func problem() -> String? {
        for (name, time) in [("bedtime", bedtime), ("wake time", wakeTime), ("off-wrist time", offWrist)]
        where !time.isValid {
            return "\(name) \(time.hour):\(time.minute) is not a time of day (hour 0...23, minute 0...59)"
        }
        if !(0...120).contains(jitterMinutes) { return "jitter \(jitterMinutes) min is outside 0...120" }
        if !(1...120).contains(offWristMinutes) {
            return "off-wrist length \(offWristMinutes) min is outside 1...120"
        }
        let bedMinutes = bedtime.minutesAfterMidnight + (bedtime.hour < 12 ? 1_440 : 0)
        let sleepMinutes = wakeTime.minutesAfterMidnight + 1_440 - bedMinutes
        if !(180...840).contains(sleepMinutes) {
            return "bedtime \(bedtime) to wake time \(wakeTime) is \(sleepMinutes) min; a night must be 3...14 h"
        }
        for (index, period) in periods.enumerated() {
            if !period.start.isValid {
                return "period \(index) starts at \(period.start.hour):\(period.start.minute), not a time of day"
            }
            if !(1...600).contains(period.durationMinutes) {
                return "period \(index) lasts \(period.durationMinutes) min; use 1...600"
            }
        }
        return nil
    }
}
