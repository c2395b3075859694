import BraceletDecoder
import Foundation

/// The keys a ROOK input file may use, in three spellings: ROOK's API summaries in snake_case
/// (`sleep_duration_seconds_int`), their camelCase spelling (`sleepDurationSecondsInt`, each `_x`
/// written `X`), and the ROOK SDK's own field names (`sleepDurationSeconds`, `stepsPerDayNumber`,
/// ``ROOKSDKNames``). Files are normalised to snake_case before decoding. A key in none of them is
/// an error naming the key, where it is and the nearest accepted spelling: a misspelled key would
/// otherwise drop its value without anyone noticing. Two spellings of one field with the same
/// value are read once with a warning; with different values they are an error.
enum ROOKKeys {
    static let day = ["date", "source", "sleep_summary", "physical_summary", "activity_events", "coverage"]
    static let sleep = ROOKSleepSummary.CodingKeys.allCases.map(\.rawValue)
    static let physical = ROOKPhysicalSummary.CodingKeys.allCases.map(\.rawValue)
    static let event = ROOKActivityEvent.CodingKeys.allCases.map(\.rawValue)
    static let coverage = ROOKDayCoverage.CodingKeys.allCases.map(\.rawValue)

    /// The spellings accepted at one level of the file.
    struct Level {
        /// The snake_case keys.
        let keys: [String]
        /// Other spellings (our camelCase, the SDK's names), each with the key it is read as.
        let aliases: [String: String]
        /// Names recognised and not read (the SDK's fields the score does not use).
        let ignored: Set<String>

        init(_ keys: [String], sdk: [(sdk: String, key: String)] = [], ignored: Set<String> = []) {
            self.keys = keys
            var aliases = Dictionary(keys.map { (camelCase($0), $0) }, uniquingKeysWith: { a, _ in a })
            for (name, key) in sdk { aliases[name] = key }
            aliases = aliases.filter { !keys.contains($0.key) }
            self.aliases = aliases
            self.ignored = ignored
        }

        /// Every accepted spelling, for suggestions: the keys first, then the other spellings.
        var spellings: [String] { keys + aliases.keys.sorted() }
    }

    static let top = Level(["days"])
    static let dayLevel = Level(day)
    static let sleepLevel = Level(sleep, sdk: ROOKSDKNames.sleep, ignored: ROOKSDKNames.sleepUnused)
    static let physicalLevel = Level(physical, sdk: ROOKSDKNames.physical, ignored: ROOKSDKNames.physicalUnused)
    static let eventLevel = Level(event, sdk: ROOKSDKNames.event, ignored: ROOKSDKNames.eventUnused)
    static let coverageLevel = Level(coverage)

    /// Keys that are read but never scored (kept for completeness; named in missing-field reasons).
    static let notScored: Set<String> = ["light_sleep_duration_seconds_int", "sleep_efficiency_1_100_score_int",
                                         "total_calories_kcal_double", "calories_burned_kcal", "source", "is_complete", "worn_minutes"]

    /// What a ROOK file may contain, level by level: each key read, with the ROOK SDK's name where
    /// it has one (`key/sdkName`), and the keys that are read but not scored marked `*`.
    static var help: String {
        func line(_ title: String, _ level: Level) -> String {
            let sdkName = Dictionary(level.aliases.filter { $0.key != camelCase($0.value) }.map { ($0.value, $0.key) },
                                     uniquingKeysWith: { a, _ in a })
            let keys = level.keys.map { key in
                (sdkName[key].map { "\(key)/\($0)" } ?? key) + (notScored.contains(key) ? "*" : "")
            }
            return "\(title): " + keys.joined(separator: ", ")
        }
        return [
            line("day", dayLevel),
            line("sleep_summary (SDK RookSleepSummary)", sleepLevel),
            line("physical_summary (SDK RookPhysicalSummary)", physicalLevel),
            line("activity_events[] (SDK RookActivityEvent)", eventLevel),
            line("coverage (written by bracelet export)", coverageLevel),
        ].joined(separator: "\n")
    }

    /// `sleep_duration_seconds_int` -> `sleepDurationSecondsInt`.
    static func camelCase(_ snake: String) -> String {
        var result = ""
        var upper = false
        for c in snake {
            if c == "_" { upper = true; continue }
            result += upper ? c.uppercased() : String(c)
            upper = false
        }
        return result
    }

    /// The JSON of a ROOK file with every key in snake_case, and one warning per field given twice
    /// with the same value.
    ///
    /// - Throws: ``ROOKInputError/unknownKeys(_:total:)`` listing the keys that are not accepted, and
    ///   ``ROOKInputError/conflictingSpellings(path:keys:)`` for a field given twice with different values.
    static func normalize(_ root: Any) throws(ROOKInputError) -> (json: Any, warnings: [String]) {
        var state = State()
        guard let object = root as? [String: Any] else { return (root, []) }
        var top = try state.rename(object, top, at: "the top level")
        if let days = top["days"] as? [Any] {
            var out: [Any] = []
            for (index, element) in days.enumerated() {
                guard let dayObject = element as? [String: Any] else { out.append(element); continue }
                let path = "days[\(index)]"
                var day = try state.rename(dayObject, dayLevel, at: path)
                for (key, level) in [("sleep_summary", sleepLevel), ("physical_summary", physicalLevel), ("coverage", coverageLevel)] {
                    if let inner = day[key] as? [String: Any] { day[key] = try state.rename(inner, level, at: "\(path).\(key)") }
                }
                if let events = day["activity_events"] as? [Any] {
                    var renamed: [Any] = []
                    for (i, e) in events.enumerated() {
                        guard let event = e as? [String: Any] else { renamed.append(e); continue }
                        renamed.append(try state.rename(event, eventLevel, at: "\(path).activity_events[\(i)]"))
                    }
                    day["activity_events"] = renamed
                }
                out.append(day)
            }
            top["days"] = out
        }
        guard state.unknown.isEmpty else { throw .unknownKeys(state.unknown, total: state.unknownCount) }
        return (top, state.warnings)
    }

    /// What normalising found so far: unknown keys are collected so that one error lists them, the
    /// first ``listedUnknownKeys`` with a suggestion (each costs edit distances against every
    /// spelling of its level; a file of nothing but unknown keys must not cost that per key).
    struct State {
        static let listedUnknownKeys = 10
        var unknown: [ROOKUnknownKey] = []
        var unknownCount = 0
        var warnings: [String] = []

        /// Renames other spellings to their snake_case key; drops the SDK fields not read.
        mutating func rename(_ object: [String: Any], _ level: Level, at path: String) throws(ROOKInputError) -> [String: Any] {
            var out: [String: Any] = [:]
            var spelledAs: [String: String] = [:]
            for key in object.keys.sorted(by: { (level.keys.contains($0) ? 0 : 1, $0) < (level.keys.contains($1) ? 0 : 1, $1) }) {
                let value = object[key] as Any
                guard let target = level.keys.contains(key) ? key : level.aliases[key] else {
                    if !level.ignored.contains(key) {
                        unknownCount += 1
                        if unknown.count < Self.listedUnknownKeys {
                            unknown.append(ROOKUnknownKey(path: path, key: key, suggestion: EditDistance.nearest(to: key, in: level.spellings) ?? ""))
                        }
                    }
                    continue
                }
                if let earlier = spelledAs[target] {
                    guard let first = out[target] as? NSObject, first.isEqual(value) else {
                        throw .conflictingSpellings(path: path, keys: [earlier, key])
                    }
                    warnings.append("\(path) gives \(target) twice, as \(earlier) and as \(key), with the same value: read once")
                    continue
                }
                spelledAs[target] = key
                out[target] = value
            }
            return out
        }
    }
}
