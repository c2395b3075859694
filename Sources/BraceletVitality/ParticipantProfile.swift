import BraceletStore
import BraceletSummaries
import Foundation

/// Settings of the person wearing a bracelet, each one given or not: what a command's flags say,
/// a change to a participant record, or what the record holds on one day.
public struct ParticipantProfile: Sendable, Equatable {
    /// The zone the person's days are cut in.
    public var timeZone: TimeZone?
    /// Age in years.
    public var age: Int?
    /// Measured maximum heart rate, BPM (wins over the age formula for the zones).
    public var hrMax: Int?
    /// The formula of the maximum heart rate from the age.
    public var hrMaxFormula: HRMaxFormula?
    /// Body height in cm.
    public var heightCm: Double?
    /// Daily step goal.
    public var stepGoal: Int?
    /// Summary slot length in seconds.
    public var slotSeconds: Int?
    /// Lowest sample quality that counts (0-4).
    public var minQuality: Int?

    /// A profile with these settings (nil: not given).
    public init(timeZone: TimeZone? = nil, age: Int? = nil, hrMax: Int? = nil, hrMaxFormula: HRMaxFormula? = nil, heightCm: Double? = nil,
                stepGoal: Int? = nil, slotSeconds: Int? = nil, minQuality: Int? = nil) {
        self.timeZone = timeZone
        self.age = age
        self.hrMax = hrMax
        self.hrMaxFormula = hrMaxFormula
        self.heightCm = heightCm
        self.stepGoal = stepGoal
        self.slotSeconds = slotSeconds
        self.minQuality = minQuality
    }

    /// Whether no setting is given.
    public var isEmpty: Bool { texts.isEmpty }

    /// The settings given, as the record stores them.
    public var texts: [ParticipantSettingName: String] {
        var texts: [ParticipantSettingName: String] = [:]
        texts[.timeZone] = timeZone.map(SummaryConfiguration.name(of:))
        texts[.age] = age.map(String.init)
        texts[.hrMax] = hrMax.map(String.init)
        texts[.hrMaxFormula] = hrMaxFormula?.rawValue
        texts[.heightCm] = heightCm.map { "\($0)" }
        texts[.stepGoal] = stepGoal.map(String.init)
        texts[.slotSeconds] = slotSeconds.map(String.init)
        texts[.minQuality] = minQuality.map(String.init)
        return texts
    }

    /// The profile of stored texts; a text that is not a value of its setting is an error naming it.
    public init(texts: [ParticipantSettingName: String], device: String) throws(ParticipantError) {
        func number(_ name: ParticipantSettingName) throws(ParticipantError) -> Int? {
            guard let text = texts[name] else { return nil }
            guard let value = Int(text) else { throw .damaged(device: device, setting: name, value: text) }
            return value
        }
        self.init()
        if let text = texts[.timeZone] {
            guard let zone = Self.zone(named: text) else { throw .damaged(device: device, setting: .timeZone, value: text) }
            timeZone = zone
        }
        age = try number(.age)
        hrMax = try number(.hrMax)
        if let text = texts[.hrMaxFormula] {
            guard let formula = HRMaxFormula(rawValue: text) else { throw .damaged(device: device, setting: .hrMaxFormula, value: text) }
            hrMaxFormula = formula
        }
        if let text = texts[.heightCm] {
            guard let height = Double(text) else { throw .damaged(device: device, setting: .heightCm, value: text) }
            heightCm = height
        }
        stepGoal = try number(.stepGoal)
        slotSeconds = try number(.slotSeconds)
        minQuality = try number(.minQuality)
    }

    /// A zone as the record stores it: what `--tz` takes (a fixed offset is stored as `UTC-04:00`,
    /// by records written before as `GMT-0400`), or a Foundation identifier.
    static func zone(named text: String) -> TimeZone? {
        (try? SummaryConfiguration.timeZone(named: text)) ?? TimeZone(identifier: text)
    }

    /// This profile with every setting `other` gives replacing its own.
    public func overridden(by other: ParticipantProfile) -> ParticipantProfile {
        ParticipantProfile(timeZone: other.timeZone ?? timeZone, age: other.age ?? age, hrMax: other.hrMax ?? hrMax,
                           hrMaxFormula: other.hrMaxFormula ?? hrMaxFormula, heightCm: other.heightCm ?? heightCm,
                           stepGoal: other.stepGoal ?? stepGoal, slotSeconds: other.slotSeconds ?? slotSeconds,
                           minQuality: other.minQuality ?? minQuality)
    }

    /// The summary configuration of these settings, the defaults standing in for the ones not
    /// given except the zone, which must be given.
    ///
    /// - Throws: ``ParticipantError/noTimeZone(device:)`` without a zone, ``ParticipantError/invalid(_:)``
    ///   for a value out of range.
    public func configuration(device: String) throws(ParticipantError) -> SummaryConfiguration {
        guard let timeZone else { throw .noTimeZone(device: device) }
        do {
            return try SummaryConfiguration(summarySlotSeconds: slotSeconds ?? SummaryConfiguration.defaultSlotSeconds,
                                            qualityThreshold: minQuality ?? SummaryConfiguration.defaultQualityThreshold, age: age, hrMax: hrMax,
                                            hrMaxFormula: hrMaxFormula ?? .tanaka, heightCm: heightCm ?? SummaryConfiguration.defaultHeightCm,
                                            stepGoal: stepGoal ?? SummaryConfiguration.defaultStepGoal, timeZone: timeZone)
        } catch {
            throw .invalid(error)
        }
    }

    /// Throws ``ParticipantError/invalid(_:)`` when a value given is out of its range, checked as a
    /// summary checks it; a zone not given is not required (it may come from the record).
    public func validateRanges(device: String) throws(ParticipantError) {
        var zoned = self
        zoned.timeZone = zoned.timeZone ?? TimeZone(identifier: "UTC")
        _ = try zoned.configuration(device: device)
    }

    /// Text that differs exactly when the stored summaries, sleep sessions or vitality metrics of a
    /// day computed with these settings differ: the summary basis, the age the metrics carry and
    /// whether the zones are the person's own (movement minutes need them).
    func computationKey(device: String) throws(ParticipantError) -> String {
        let configuration = try configuration(device: device)
        let zones = age != nil || hrMax != nil
        return configuration.summaryBasis + ";age=\(age.map(String.init) ?? "-");zones=\(zones)"
    }
}

extension ParticipantSettingName {
    /// The command-line flag that gives the setting.
    public var flag: String {
        switch self {
        case .timeZone: "--tz"
        case .age: "--age"
        case .hrMax: "--hr-max"
        case .hrMaxFormula: "--hrmax-formula"
        case .heightCm: "--height"
        case .stepGoal: "--step-goal"
        case .slotSeconds: "--slot-seconds"
        case .minQuality: "--min-quality"
        }
    }
}

/// Why a participant record cannot be used or changed as asked.
public enum ParticipantError: Error, Sendable, CustomStringConvertible {
    /// The device has no time zone in its record and none was given.
    case noTimeZone(device: String)
    /// A stored value is not a value of its setting (the file was changed by hand or damaged).
    case damaged(device: String, setting: ParticipantSettingName, value: String)
    /// A value is out of range.
    case invalid(SummaryConfigurationError)
    /// A command that writes was given a setting that disagrees with the record.
    case conflict(device: String, setting: ParticipantSettingName, given: String, recorded: String)
    /// Any other bad request (a bad date, a user id that cannot be stored, ...).
    case badRequest(String)

    /// What was wrong and what to do; `database` completes the commands it suggests.
    public func description(database: String) -> String {
        switch self {
        case let .noTimeZone(device):
            "device \(device) has no time zone in its participant record: set it with "
                + "`bracelet person set --db \(database) --device \(device) --tz ZONE` (e.g. Europe/Amsterdam)"
        case let .damaged(device, setting, value):
            "the participant record of \(device) holds \"\(value)\" as \(setting.rawValue), which is not a value of it: "
                + "set it again with `bracelet person set --db \(database) --device \(device) \(setting.flag) VALUE`"
        case let .invalid(error):
            "\(error)"
        case let .conflict(device, setting, given, recorded):
            "\(setting.flag) \(given) disagrees with the participant record of \(device) (\(setting.rawValue) \(recorded)); this command "
                + "writes, so it does not cut days another way. Change the record with `bracelet person set --db \(database) "
                + "--device \(device) \(setting.flag) \(given)` (it recomputes the days that change), or leave \(setting.flag) out"
        case let .badRequest(text):
            text
        }
    }

    /// What was wrong and what to do.
    public var description: String { description(database: "DB") }
}
