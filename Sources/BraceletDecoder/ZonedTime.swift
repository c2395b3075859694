import BraceletProtocol
import Foundation

/// The one conversion between Unix time and the wall clock of a time zone: the local day of an
/// instant, and the instant a local time names. Every layer that cuts days or reads a device's
/// local time stamp calls it (summaries, the store's touched days, a sensor's stream, the
/// gateway's events, the simulator), so a day starts at the same second everywhere.
///
/// Local times are counted like Unix time but on the zone's wall clock: seconds since
/// 1970-01-01 00:00 local (``LocalDate/dayNumber`` times 86 400 plus the second of the day).
package enum ZonedTime {
    /// Seconds east of UTC in `zone` at Unix time `seconds`.
    package static func offset(at seconds: Int64, in zone: TimeZone) -> Int64 {
        Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(seconds))))
    }

    /// `zone`'s wall clock at Unix time `seconds`, in local seconds.
    package static func localSeconds(ofUnix seconds: Int64, in zone: TimeZone) -> Int64 {
        seconds + offset(at: seconds, in: zone)
    }

    /// The local day (days since 1970-01-01 on `zone`'s wall clock) of Unix time `seconds`.
    package static func dayNumber(ofUnix seconds: Int64, in zone: TimeZone) -> Int {
        Int(localSeconds(ofUnix: seconds, in: zone).floorDivided(by: 86_400).quotient)
    }

    /// ``dayNumber(ofUnix:in:)`` for many instants in rising order: the offset found for one instant
    /// is kept up to the zone's next transition, so a run of instants asks the zone once per offset
    /// period instead of once each (each ask takes Foundation's lock and calls ICU: a month's
    /// 43,200 slots spent 9 ms of an ingest there). An instant before the kept span asks again.
    package struct Days {
        private let zone: TimeZone
        private var from = Int64.max, until = Int64.min, offset: Int64 = 0

        /// Days in `zone`.
        package init(in zone: TimeZone) {
            self.zone = zone
        }

        /// The local day of Unix time `seconds`, the same as ``ZonedTime/dayNumber(ofUnix:in:)``.
        package mutating func dayNumber(ofUnix seconds: Int64) -> Int {
            if seconds < from || seconds >= until {
                offset = ZonedTime.offset(at: seconds, in: zone)
                from = seconds
                // No transition before `until`: the offset holds through it (Int64.max when the
                // zone has none ahead).
                until = zone.nextDaylightSavingTimeTransition(after: Date(timeIntervalSince1970: TimeInterval(seconds)))
                    .map { Int64($0.timeIntervalSince1970.rounded(.up)) } ?? .max
            }
            return Int((seconds + offset).floorDivided(by: 86_400).quotient)
        }
    }

    /// The local date of Unix time `seconds` in `zone`.
    package static func date(ofUnix seconds: Int64, in zone: TimeZone) -> LocalDate {
        LocalDate(dayNumber: dayNumber(ofUnix: seconds, in: zone))
    }

    /// The Unix time at which `zone`'s wall clock shows `local` (local seconds). A time the clock
    /// shows twice (set back) is its first instant; a time it skips (set forward) is the instant
    /// the gap ends, so the start of a day whose midnight is skipped is its first second that exists.
    package static func unixSeconds(ofLocal local: Int64, in zone: TimeZone) -> Int64 {
        // An instant t shows `local` when t + offset(t) == local: the candidates are the offsets
        // in force a day either side (no zone changes its offset twice within a day).
        let before = offset(at: local - 86_400, in: zone), after = offset(at: local + 86_400, in: zone)
        let candidates = [local - before, local - after].filter { localSeconds(ofUnix: $0, in: zone) == local }
        if let first = candidates.min() { return first }
        // Skipped: the gap ends at the offset change between the two candidates.
        let earlier = min(local - before, local - after)
        guard let change = zone.nextDaylightSavingTimeTransition(after: Date(timeIntervalSince1970: TimeInterval(earlier))) else {
            return local - after
        }
        return Int64(change.timeIntervalSince1970.rounded(.up))
    }

    /// The Unix time at which `date` starts in `zone` (its first second that exists).
    package static func start(of date: LocalDate, in zone: TimeZone) -> Int64 {
        unixSeconds(ofLocal: Int64(date.dayNumber) * 86_400, in: zone)
    }
}

extension Int64 {
    /// The quotient rounded towards minus infinity, unlike `/` (which rounds towards zero), and the
    /// remainder that goes with it (0 ..< `divisor`): the day of a time before 1970 is the day before,
    /// not day 0. `divisor` is positive.
    @inline(__always)
    package func floorDivided(by divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let q = self >= 0 ? self / divisor : (self - (divisor - 1)) / divisor
        return (q, self - q * divisor)
    }
}

extension SIGDateTime {
    /// The Date Time of local seconds `local` (``ZonedTime``): what a device whose clock is set to
    /// that wall clock shows.
    package init(localSeconds local: Int64) {
        let (day, second) = local.floorDivided(by: 86_400)
        let date = LocalDate(dayNumber: Int(day))
        self.init(year: date.year, month: date.month, day: date.day, hours: Int(second / 3_600), minutes: Int(second / 60 % 60),
                  seconds: Int(second % 60))
    }

    /// The date and time as local seconds (``ZonedTime``); `nil` when it is not a real date and time
    /// (a part not known, or out of range).
    package var localSeconds: Int64? {
        guard let date = LocalDate(year: year, month: month, day: day), (0..<24).contains(hours), (0..<60).contains(minutes),
              (0..<60).contains(seconds) else { return nil }
        return Int64(date.dayNumber) * 86_400 + Int64(hours * 3_600 + minutes * 60 + seconds)
    }
}
