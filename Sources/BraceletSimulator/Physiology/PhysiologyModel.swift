import BraceletDecoder
import BraceletProtocol
import Foundation

/// A deterministic, physiologically plausible wearer of a V1 or V2 bracelet: the ground truth from
/// which captures and the simulated bracelet are generated.
///
/// Creating the model decides the schedule once (sleep periods with their stages, walks, runs,
/// rides, off-wrist periods, battery charges); `slots(from:to:)` and `beats(from:to:)` then compute
/// values at any time, in any order, from the seed alone. The same configuration and seed always give
/// the same data; another seed gives different data.
public struct PhysiologyModel: Sendable {
    /// V1 or V2: V1 slots have no SpO2, core temperature or EDA.
    public let deviceModel: DeviceModel
    /// The bracelet's serial (1 ... 8 printable ASCII characters).
    public let serial: String
    /// First second covered (UTC Unix seconds); the first slot starts here.
    public let start: Int64
    /// First second after the covered range (UTC Unix seconds).
    public let end: Int64
    /// Length of each slot in seconds (1 ... 3600).
    public let slotIntervalSeconds: Int32
    /// The seed every random choice derives from.
    public let seed: UInt64
    /// The person's time zone, which sets their daily rhythm.
    public let timeZone: TimeZone
    /// The wearer.
    public let person: PersonProfile
    /// The wearer's daily routine in local time.
    public let schedule: DailySchedule
    /// How the battery drains and charges.
    public let batteryBehaviour: BatteryBehaviour

    /// Ground truth: nights and naps overlapping the range, in time order (UTC), with their stages.
    /// A night may start before `start` or end after `end`.
    public var sleepPeriods: [SleepPeriod] { plan.sleepPeriods }
    /// Ground truth: walks, runs and rides overlapping the range, in time order (UTC).
    public var activities: [ActivityPeriod] { plan.activities }
    /// Ground truth: off-wrist periods (showers, charging) overlapping the range, in time order (UTC).
    public var offWristPeriods: [OffWristPeriod] { plan.offWristPeriods }

    let plan: PhysiologyPlan
    let clock: LocalClock
    let noise: NoiseSource
    /// Passive (basal) energy use in calories per second.
    let basalCaloriesPerSecond: Double

    /// Creates a model covering `start ..< end` (UTC Unix seconds).
    ///
    /// - Throws: `PhysiologyModelError` naming the first value out of range.
    public init(model: DeviceModel, serial: String, start: Int64, end: Int64, slotIntervalSeconds: Int32 = 60,
                seed: UInt64, timeZoneIdentifier: String, person: PersonProfile = .typicalAdult,
                schedule: DailySchedule = .typical, battery: BatteryBehaviour = .typical) throws(PhysiologyModelError) {
        guard let timeZone = TimeZone(identifier: timeZoneIdentifier) else {
            throw .unknownTimeZone(timeZoneIdentifier)
        }
        try self.init(model: model, serial: serial, start: start, end: end, slotIntervalSeconds: slotIntervalSeconds,
                      seed: seed, timeZone: timeZone, person: person, schedule: schedule, battery: battery)
    }

    /// Creates a model covering `days` local calendar days from `start` (so a day with a
    /// daylight-saving change lasts 23 or 25 hours).
    ///
    /// - Throws: `PhysiologyModelError` naming the first value out of range.
    public init(model: DeviceModel, serial: String, start: Int64, days: Int, slotIntervalSeconds: Int32 = 60,
                seed: UInt64, timeZoneIdentifier: String, person: PersonProfile = .typicalAdult,
                schedule: DailySchedule = .typical, battery: BatteryBehaviour = .typical) throws(PhysiologyModelError) {
        guard let timeZone = TimeZone(identifier: timeZoneIdentifier) else {
            throw .unknownTimeZone(timeZoneIdentifier)
        }
        guard (1...400).contains(days) else { throw .dayCountOutOfRange(days) }
        let clock = LocalClock(timeZone: timeZone, from: start, to: start + Int64(days + 1) * 86_400)
        let end = clock.adding(days: days, to: start) ?? start + Int64(days) * 86_400
        try self.init(model: model, serial: serial, start: start, end: end, slotIntervalSeconds: slotIntervalSeconds,
                      seed: seed, timeZone: timeZone, person: person, schedule: schedule, battery: battery)
    }

    private init(model: DeviceModel, serial: String, start: Int64, end: Int64, slotIntervalSeconds: Int32,
                 seed: UInt64, timeZone: TimeZone, person: PersonProfile, schedule: DailySchedule,
                 battery: BatteryBehaviour) throws(PhysiologyModelError) {
        guard (1...8).contains(serial.utf8.count), serial.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw .invalidSerial(serial)
        }
        guard (1...3_600).contains(slotIntervalSeconds) else { throw .slotIntervalOutOfRange(slotIntervalSeconds) }
        guard end > start else { throw .emptyTimeRange(start: start, end: end) }
        guard end - start <= PhysiologyModelError.maximumSeconds else { throw .timeRangeTooLong(seconds: end - start) }
        if let problem = person.problem() { throw .invalidPerson(problem) }
        if let problem = schedule.problem() { throw .invalidSchedule(problem) }
        if let problem = battery.problem() { throw .invalidBattery(problem) }
        deviceModel = model
        self.serial = serial
        self.start = start
        self.end = end
        self.slotIntervalSeconds = slotIntervalSeconds
        self.seed = seed
        self.timeZone = timeZone
        self.person = person
        self.schedule = schedule
        batteryBehaviour = battery
        clock = LocalClock(timeZone: timeZone, from: start, to: end)
        noise = NoiseSource(seed: seed)
        basalCaloriesPerSecond = person.basalMetabolicRateKcalPerDay * 1_000 / 86_400
        plan = PhysiologyPlan(start: start, end: end, seed: seed, clock: clock, schedule: schedule, battery: battery)
    }

    /// Number of slots in the range (the last one may reach past `end`).
    public var slotCount: Int {
        Int((end - start + Int64(slotIntervalSeconds) - 1) / Int64(slotIntervalSeconds))
    }

    /// The wall-clock time in the wearer's time zone at `t` (UTC Unix seconds).
    public func localTime(at t: Int64) -> LocalTime {
        let local = t + clock.offset(at: t)
        let minutes = Int(local.floorDivided(by: 86_400).remainder / 60)
        return LocalTime(hour: minutes / 60, minute: minutes % 60)
    }

    /// Offset of the wearer's wall clock from UTC at `t`, in seconds (e.g. 7200 for CEST).
    public func utcOffsetSeconds(at t: Int64) -> Int {
        Int(clock.offset(at: t))
    }

    /// Battery level in percent at `t` (UTC Unix seconds).
    public func batteryPercent(at t: Int64) -> Int {
        Int(plan.battery.level(at: Double(t)).rounded())
    }

    /// Whether the bracelet is on its charger at `t` (UTC Unix seconds).
    public func isCharging(at t: Int64) -> Bool {
        offWristIndex(at: Double(t)).map { offWristPeriods[$0].isCharging } ?? false
    }

    /// Whether the bracelet is on the wrist at `t` (UTC Unix seconds); false outside the range.
    public func isWorn(at t: Int64) -> Bool {
        guard t >= start, t < end else { return false }
        return offWristIndex(at: Double(t)) == nil
    }

    /// The worn stretches of the range: the range minus the off-wrist periods, in time order.
    public var wornPeriods: [TimeSpan] {
        var result: [TimeSpan] = []
        var cursor = start
        for period in offWristPeriods {
            if period.start > cursor { result.append(TimeSpan(start: cursor, end: min(end, period.start))) }
            cursor = max(cursor, period.end)
            if cursor >= end { break }
        }
        if cursor < end { result.append(TimeSpan(start: cursor, end: end)) }
        return result
    }
}

/// A time range in UTC Unix seconds, `start` inclusive, `end` exclusive.
public struct TimeSpan: Sendable, Equatable {
    /// First second.
    public var start: Int64
    /// First second after the range.
    public var end: Int64

    /// Creates a range.
    public init(start: Int64, end: Int64) {
        self.start = start
        self.end = end
    }
}
