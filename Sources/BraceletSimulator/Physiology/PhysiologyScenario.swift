import BraceletDecoder
import BraceletProtocol
import Foundation

/// Named, fixed configurations of the physiological model, shared by the capture generator, the
/// simulated bracelet and the tests.
public enum PhysiologyScenario: String, Sendable, CaseIterable {
    /// A V1 bracelet for one day (Europe/Amsterdam, 2026-06-15 local midnight to midnight): the
    /// night's sleep, a shower with a charge, two walks and an evening run.
    case v1Day = "v1-day"
    /// A V2 bracelet for three days (America/New_York, 2026-06-16 ... 18): naps, walks, a run on
    /// day 1 and a bike ride on day 2.
    case v2ThreeDays = "v2-three-days"
    /// A V2 bracelet across the end of daylight saving time (Europe/Amsterdam, 2026-10-24 ... 26
    /// local, 73 hours: 2026-10-25 has 25 hours). The local bedtime stays 23:00, in UTC it moves.
    case v2DaylightSaving = "v2-daylight-saving"

    /// The seed used when none is given.
    public static let defaultSeed: UInt64 = 20_260_615

    /// The bracelet model of the scenario.
    public var deviceModel: DeviceModel {
        self == .v1Day ? .v1 : .v2
    }

    /// The model for this scenario.
    ///
    /// - Parameters:
    ///   - seed: the random seed; the default gives the committed captures.
    ///   - slotIntervalSeconds: slot length, 1 ... 3600 seconds.
    /// - Throws: `PhysiologyModelError` only if the machine lacks the scenario's time zone (install tzdata)
    ///   or the slot interval is out of range.
    public func makeModel(seed: UInt64 = PhysiologyScenario.defaultSeed,
                          slotIntervalSeconds: Int32 = 60) throws(PhysiologyModelError) -> PhysiologyModel {
        switch self {
        case .v1Day:
            var schedule = DailySchedule.typical
            schedule.periods.append(ScheduledPeriod(.run, at: LocalTime(hour: 19, minute: 15), minutes: 30))
            return try PhysiologyModel(
                model: .v1, serial: "V1DAY001", start: 1_781_474_400, days: 1,  // 2026-06-15 00:00 CEST
                slotIntervalSeconds: slotIntervalSeconds, seed: seed, timeZoneIdentifier: "Europe/Amsterdam",
                schedule: schedule)
        case .v2ThreeDays:
            var schedule = DailySchedule.typical
            schedule.periods += [
                ScheduledPeriod(.nap, at: LocalTime(hour: 14, minute: 30), minutes: 25, on: .days([0, 2])),
                ScheduledPeriod(.nap, at: LocalTime(hour: 15), minutes: 50, on: .days([1])),
                ScheduledPeriod(.run, at: LocalTime(hour: 19, minute: 15), minutes: 45, on: .days([1])),
                ScheduledPeriod(.cycle, at: LocalTime(hour: 8, minute: 30), minutes: 25, on: .days([2])),
            ]
            return try PhysiologyModel(
                model: .v2, serial: "V23DAY01", start: 1_781_582_400, days: 3,  // 2026-06-16 00:00 EDT
                slotIntervalSeconds: slotIntervalSeconds, seed: seed, timeZoneIdentifier: "America/New_York",
                schedule: schedule)
        case .v2DaylightSaving:
            var schedule = DailySchedule.typical
            schedule.jitterMinutes = 10
            schedule.periods += [
                ScheduledPeriod(.nap, at: LocalTime(hour: 14), minutes: 30, on: .days([1])),
                ScheduledPeriod(.run, at: LocalTime(hour: 10), minutes: 35, on: .days([1])),
            ]
            return try PhysiologyModel(
                model: .v2, serial: "V2DST001", start: 1_792_792_800, days: 3,  // 2026-10-24 00:00 CEST
                slotIntervalSeconds: slotIntervalSeconds, seed: seed, timeZoneIdentifier: "Europe/Amsterdam",
                schedule: schedule)
        }
    }
}

extension PhysiologyModel {
    /// The history a simulated bracelet holds: `days` × 24 hours ending at `end` (e.g. now), with the
    /// typical routine plus a run every third day, a bike ride every fourth and a nap every fifth.
    /// This is what `bracelet simulate --model M --days N --seed S` serves.
    ///
    /// `battery` replaces the typical battery; `unwornDays` are whole local days the bracelet lies
    /// off the wrist, counted back from the day that holds `end` (0: that day, 1: the day before).
    ///
    /// - Throws: `PhysiologyModelError` when `days` is outside 1 ... 400, the serial or the time zone
    ///   is unusable.
    public static func simulatedHistory(model: DeviceModel, serial: String, days: Int, seed: UInt64,
                                        endingAt end: Int64, slotIntervalSeconds: Int32 = 60,
                                        timeZoneIdentifier: String = "Europe/Amsterdam",
                                        battery: BatteryBehaviour = .typical, unwornDays: Set<Int> = [])
        throws(PhysiologyModelError) -> PhysiologyModel {
        guard (1...400).contains(days) else { throw .dayCountOutOfRange(days) }
        // Align to the slot grid so that slots end exactly at `end`.
        let interval = Int64(max(1, slotIntervalSeconds))
        let alignedEnd = end.floorDivided(by: interval).quotient * interval
        let start = alignedEnd - Int64(days) * 86_400
        var schedule = DailySchedule.typical
        schedule.periods += [
            ScheduledPeriod(.run, at: LocalTime(hour: 19, minute: 15), minutes: 40,
                            on: .days(Set(stride(from: 1, through: days, by: 3)))),
            ScheduledPeriod(.cycle, at: LocalTime(hour: 8, minute: 30), minutes: 25,
                            on: .days(Set(stride(from: 2, through: days, by: 4)))),
            ScheduledPeriod(.nap, at: LocalTime(hour: 14, minute: 30), minutes: 25,
                            on: .days(Set(stride(from: 0, through: days, by: 5)))),
        ]
        if !unwornDays.isEmpty {
            guard let zone = TimeZone(identifier: timeZoneIdentifier) else { throw .unknownTimeZone(timeZoneIdentifier) }
            let last = ZonedTime.date(ofUnix: alignedEnd - 1, in: zone)
            schedule.unwornDates = Set(unwornDays.map { last.adding(days: -$0) })
        }
        return try PhysiologyModel(model: model, serial: serial, start: start, end: alignedEnd,
                                   slotIntervalSeconds: slotIntervalSeconds, seed: seed,
                                   timeZoneIdentifier: timeZoneIdentifier, schedule: schedule, battery: battery)
    }
}
