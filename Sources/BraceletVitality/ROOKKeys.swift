import Foundation

/// The keys a ROOK input file may use, in both shapes: ROOK's API summaries in snake_case
/// (`sleep_duration_seconds_int`) and the ROOK SDK's summary objects in camelCase
/// (`sleepDurationSecondsInt`, the same name with each `_x` written `X`). Files are normalised to
/// snake_case before decoding; a key that is neither is ignored with a warning naming the nearest
/// known key.
enum ROOKKeys {
    static let day = ["date", "source", "sleep_summary", "physical_summary", "activity_events"]
    static let sleep = ROOKSleepSummary.CodingKeys.allCases.map(\.rawValue)
    static let physical = ROOKPhysicalSummary.CodingKeys.allCases.map(\.rawValue)
    static let event = ROOKActivityEvent.CodingKeys.allCases.map(\.rawValue)

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

    /// The JSON of a ROOK file with every key in snake_case, and one warning per unknown key.
    static func normalize(_ root: Any) -> (json: Any, warnings: [String]) {
        var warnings: [String] = []
        guard var top = root as? [String: Any] else { return (root, []) }
        for key in top.keys where key != "days" {
            warnings.append(unknown(key, at: "the top level", known: ["days"]))
        }
        if let days = top["days"] as? [Any] {
            top["days"] = days.enumerated().map { index, element -> Any in
                guard let day = element as? [String: Any] else { return element }
                var out = rename(day, known: Self.day, at: "days[\(index)]", warnings: &warnings)
                for (key, known) in [("sleep_summary", sleep), ("physical_summary", physical)] {
                    if let object = out[key] as? [String: Any] {
                        out[key] = rename(object, known: known, at: "days[\(index)].\(key)", warnings: &warnings)
                    }
                }
                if let events = out["activity_events"] as? [Any] {
                    out["activity_events"] = events.enumerated().map { i, e -> Any in
                        guard let event = e as? [String: Any] else { return e }
                        return rename(event, known: Self.event, at: "days[\(index)].activity_events[\(i)]", warnings: &warnings)
                    }
                }
                return out
            }
        }
        return (top, warnings)
    }

    /// Renames camelCase keys to their snake_case spelling; drops unknown keys with a warning.
    static func rename(_ object: [String: Any], known: [String], at path: String, warnings: inout [String]) -> [String: Any] {
        let byCamel = Dictionary(known.map { (camelCase($0), $0) }, uniquingKeysWith: { a, _ in a })
        let suggestions = known + known.map(camelCase)
        var out: [String: Any] = [:]
        for key in object.keys.sorted() {
            let value = object[key] as Any
            if known.contains(key) {
                out[key] = value
            } else if let snake = byCamel[key] {
                if object[snake] != nil {
                    warnings.append("\(path) has both \(key) and \(snake): \(snake) is used")
                } else {
                    out[snake] = value
                }
            } else {
                warnings.append(unknown(key, at: path, known: suggestions))
            }
        }
        return out
    }

    static func unknown(_ key: String, at path: String, known: [String]) -> String {
        "\(path): unknown key \"\(key)\" was ignored; did you mean \"\(nearest(to: key, in: known))\"?"
    }

    /// The first of `known` at the smallest edit distance from `key`. Each distance is computed
    /// once, and a candidate whose length alone puts it at least as far as the best so far is
    /// skipped (the distance is never below the length difference): a file full of unknown or
    /// long keys costs one pass per key, not two per comparison.
    static func nearest(to key: String, in known: [String]) -> String {
        let x = Array(key.lowercased())
        var best: (name: String, distance: Int)?
        for name in known {
            let y = Array(name.lowercased())
            if let best, abs(x.count - y.count) >= best.distance { continue }
            let d = distance(x, y)
            if d < best?.distance ?? Int.max { best = (name, d) }
        }
        return best?.name ?? ""
    }

    /// Levenshtein edit distance (case-insensitive).
    static func distance(_ a: String, _ b: String) -> Int {
        distance(Array(a.lowercased()), Array(b.lowercased()))
    }

    /// Levenshtein edit distance of two character sequences, two rows reused.
    private static func distance(_ x: [Character], _ y: [Character]) -> Int {
        guard !x.isEmpty else { return y.count }
        guard !y.isEmpty else { return x.count }
        var previous = Array(0...y.count)
        var current = previous
        for i in 1...x.count {
            current[0] = i
            for j in 1...y.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x[i - 1] == y[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[y.count]
    }
}
