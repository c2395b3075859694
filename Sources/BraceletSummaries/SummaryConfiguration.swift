import BraceletDecoder
import Foundation

/// How the maximum heart rate is estimated from age when the user did not give one.
public enum HRMaxFormula: String, Sendable, Hashable, Codable, CaseIterable {
    /// Tanaka et al. (2001): `208 - 0.7 x age`. The default.
    case tanaka = "208"
    /// The classic `220 - age`.
    case classic = "220"

    /// The estimated maximum heart rate for `age` years, in BPM (not rounded).
    public func maxHeartRate(age: Int) -> Double {
        switch self {
        case .tanaka: 208.0 - 0.7 * Double(age)
        case .classic: 220.0 - Double(age)
        }
    }
}

/// Everything a summary depends on besides the samples: slot length, quality threshold, the user's
/// body (age, maximum heart rate, height), the step goal and the local time zone.
///
/// Build one with ``init(summarySlotSeconds:qualityThreshold:age:hrMax:hrMaxFormula:heightCm:stepGoal:timeZone:)``;
/// it validates every value and throws ``SummaryConfigurationError`` naming the bad one.
public struct SummaryConfiguration: Sendable, Equatable {
    /// Length of one summary slot in seconds (default 60, never below 60).
    public let summarySlotSeconds: Int
    /// Minimum quality (0...4) for heart-rate, breath and SpO2 samples to count (default 2).
    public let qualityThreshold: Int
    /// Age in years, used for the maximum heart rate when ``hrMax`` is not given.
    public let age: Int?
    /// The user's own maximum heart rate in BPM; wins over the age formula.
    public let hrMax: Int?
    /// Formula used with ``age`` when ``hrMax`` is nil.
    public let hrMaxFormula: HRMaxFormula
    /// Body height in centimetres for step distance (steps x height x 0.414 / 100 metres).
    public let heightCm: Double
    /// Daily step goal (default 10 000).
    public let stepGoal: Int
    /// The local time zone that decides where days start and end.
    public let timeZone: TimeZone

    /// The default age used when neither age nor maximum heart rate is known (40 years).
    public static let defaultAge = 40
    /// The default body height in centimetres (170 cm).
    public static let defaultHeightCm = 170.0
    /// The default summary slot length in seconds (60 s).
    public static let defaultSlotSeconds = 60
    /// The default lowest signal quality a sample needs to count (2).
    public static let defaultQualityThreshold = 2
    /// The default daily step goal (10 000).
    public static let defaultStepGoal = 10_000

    /// Creates a validated configuration.
    ///
    /// - Throws: ``SummaryConfigurationError`` when a value is out of range.
    public init(
        summarySlotSeconds: Int = SummaryConfiguration.defaultSlotSeconds,
        qualityThreshold: Int = SummaryConfiguration.defaultQualityThreshold,
        age: Int? = nil,
        hrMax: Int? = nil,
        hrMaxFormula: HRMaxFormula = .tanaka,
        heightCm: Double = SummaryConfiguration.defaultHeightCm,
        stepGoal: Int = SummaryConfiguration.defaultStepGoal,
        timeZone: TimeZone = TimeZone(secondsFromGMT: 0) ?? .current
    ) throws(SummaryConfigurationError) {
        guard summarySlotSeconds >= 60, summarySlotSeconds <= 86_400 else {
            throw .slotTooShort(summarySlotSeconds)
        }
        guard (0...4).contains(qualityThreshold) else { throw .qualityOutOfRange(qualityThreshold) }
        if let age, !(1...120).contains(age) { throw .ageOutOfRange(age) }
        if let hrMax, !(60...250).contains(hrMax) { throw .hrMaxOutOfRange(hrMax) }
        guard heightCm.isFinite, (50...250).contains(heightCm) else { throw .heightOutOfRange(heightCm) }
        guard stepGoal > 0 else { throw .stepGoalNotPositive(stepGoal) }
        self.summarySlotSeconds = summarySlotSeconds
        self.qualityThreshold = qualityThreshold
        self.age = age
        self.hrMax = hrMax
        self.hrMaxFormula = hrMaxFormula
        self.heightCm = heightCm
        self.stepGoal = stepGoal
        self.timeZone = timeZone
    }

    /// The maximum heart rate used for zones: ``hrMax`` if given, else the formula with ``age``
    /// (or ``defaultAge`` when no age is known).
    public var effectiveMaxHeartRate: Double {
        if let hrMax { return Double(hrMax) }
        return hrMaxFormula.maxHeartRate(age: age ?? Self.defaultAge)
    }

    /// The zone thresholds T50...T90 derived from ``effectiveMaxHeartRate``.
    public var zoneThresholds: HeartRateZoneThresholds {
        HeartRateZoneThresholds(maxHeartRate: effectiveMaxHeartRate)
    }

    /// Resolves a time zone given as an IANA identifier (`Europe/Amsterdam`), `UTC`, or a fixed
    /// offset (`+02:00`, `-0530`, `+2`, also as `UTC+02:00` or Foundation's `GMT+0200`). Letter
    /// case does not matter (`utc`, `europe/amsterdam`): no two zones differ only by it.
    /// ``name(of:)`` is its inverse: the name a zone is shown and stored by, which this reads back
    /// as the same zone.
    ///
    /// - Throws: ``SummaryConfigurationError/unknownTimeZone(_:)`` when neither form matches; its
    ///   description suggests the nearest names (``timeZoneSuggestions(for:)``).
    public static func timeZone(named text: String) throws(SummaryConfigurationError) -> TimeZone {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let upper = trimmed.uppercased()
        if upper == "UTC" || upper == "GMT", let zone = TimeZone(identifier: "UTC") { return zone }
        let offsetText = upper.hasPrefix("GMT") || upper.hasPrefix("UTC") ? String(trimmed.dropFirst(3)) : trimmed
        if let offset = Self.parseOffset(offsetText), let zone = TimeZone(secondsFromGMT: offset) {
            return zone
        }
        if trimmed.contains("/") {
            if let zone = TimeZone(identifier: trimmed) { return zone }
            let lower = trimmed.lowercased()
            if let known = TimeZone.knownTimeZoneIdentifiers.first(where: { $0.lowercased() == lower }), let zone = TimeZone(identifier: known) {
                return zone
            }
        }
        throw .unknownTimeZone(text)
    }

    /// The name `zone` is shown, stored and delivered by: its IANA identifier, `UTC` for the zone
    /// without offset, and `UTC-04:00` for a fixed offset. Foundation calls these `GMT` and
    /// `GMT-0400` whatever they were asked as; a person who gave `--tz UTC` or `--tz -04:00` reads
    /// back UTC and its offset, and ``timeZone(named:)`` reads each name as the same zone.
    public static func name(of zone: TimeZone) -> String {
        let identifier = zone.identifier
        guard identifier.hasPrefix("GMT") else { return identifier }
        let seconds = zone.secondsFromGMT()
        guard seconds != 0 else { return "UTC" }
        let minutes = abs(seconds) / 60
        return "UTC" + (seconds < 0 ? "-" : "+") + String(format: "%02d:%02d", minutes / 60, minutes % 60)
    }

    /// The zone names nearest to `text` (at most three, closest first; none farther than a third
    /// of its length in edits), for a "did you mean" when `text` is not a zone: IANA identifiers
    /// and `UTC`, compared whole and, for a text without `/`, by their city part
    /// (`Amsterdm` -> `Europe/Amsterdam`).
    public static func timeZoneSuggestions(for text: String) -> [String] {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return [] }
        let known = ["UTC"] + TimeZone.knownTimeZoneIdentifiers.filter { $0 != "GMT" }
        let maximum = max(1, trimmed.count / 3)
        var found = EditDistance.nearest(to: trimmed, in: known, limit: 3, maximum: maximum)
        if !trimmed.contains("/") {
            let cities = known.map { $0.split(separator: "/").last.map(String.init) ?? $0 }
            for city in EditDistance.nearest(to: trimmed, in: cities, limit: 3, maximum: maximum) {
                for (index, name) in cities.enumerated() where name == city.name && !found.contains(where: { $0.name == known[index] }) {
                    found.append((known[index], city.distance))
                }
            }
            found.sort { $0.distance < $1.distance }
        }
        return found.prefix(3).map(\.name)
    }

    /// Parses `+HH:MM`, `-HHMM`, `+H` into seconds east of UTC.
    static func parseOffset(_ text: String) -> Int? {
        guard let sign = text.first, sign == "+" || sign == "-" else { return nil }
        let body = text.dropFirst().replacingOccurrences(of: ":", with: "")
        guard !body.isEmpty, body.count <= 4, body.allSatisfy(\.isNumber) else { return nil }
        let hours: Int
        let minutes: Int
        if body.count <= 2 {
            hours = Int(body) ?? 99
            minutes = 0
        } else {
            hours = Int(body.dropLast(2)) ?? 99
            minutes = Int(body.suffix(2)) ?? 99
        }
        guard hours <= 14, minutes < 60 else { return nil }
        let seconds = hours * 3600 + minutes * 60
        return sign == "-" ? -seconds : seconds
    }
}

/// A configuration value that cannot be used, with what to do instead.
public enum SummaryConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The summary slot is shorter than 60 s (or longer than a day).
    case slotTooShort(Int)
    /// The quality threshold is outside 0...4.
    case qualityOutOfRange(Int)
    /// The age is outside 1...120 years.
    case ageOutOfRange(Int)
    /// The maximum heart rate is outside 60...250 BPM.
    case hrMaxOutOfRange(Int)
    /// The height is outside 50...250 cm.
    case heightOutOfRange(Double)
    /// The step goal is zero or negative.
    case stepGoalNotPositive(Int)
    /// The time zone text is neither an IANA identifier nor a fixed offset.
    case unknownTimeZone(String)

    /// What was wrong and what to do.
    public var description: String {
        switch self {
        case .slotTooShort(let s):
            "summary slot of \(s) s is not allowed: use 60 s or more (at most 86400 s), ideally a divisor of a day such as 60, 300 or 900"
        case .qualityOutOfRange(let q):
            "quality threshold \(q) is outside 0...4: pass a value between 0 (accept everything) and 4 (only very good)"
        case .ageOutOfRange(let a):
            "age \(a) is outside 1...120 years: pass the age in whole years, or give the maximum heart rate instead"
        case .hrMaxOutOfRange(let h):
            "maximum heart rate \(h) BPM is outside 60...250: pass a measured maximum, or leave it out and give the age"
        case .heightOutOfRange(let h):
            "height \(h) cm is outside 50...250: pass the body height in centimetres"
        case .stepGoalNotPositive(let g):
            "step goal \(g) must be positive: pass a daily step count such as 10000"
        case .unknownTimeZone(let t):
            "time zone '\(t)' is unknown" + Self.didYouMean(SummaryConfiguration.timeZoneSuggestions(for: t))
                + ": use an IANA identifier such as Europe/Amsterdam, UTC, or a fixed offset such as +02:00"
        }
    }
}

extension SummaryConfigurationError {
    /// ` (did you mean A, B or C?)`, or nothing without suggestions.
    static func didYouMean(_ names: [String]) -> String {
        guard let last = names.last else { return "" }
        let listed = names.count == 1 ? last : names.dropLast().joined(separator: ", ") + " or " + last
        return " (did you mean \(listed)?)"
    }
}
