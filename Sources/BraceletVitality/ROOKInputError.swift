import BraceletDecoder

/// Why a ROOK input file could not be used. Each message says where in the file the problem is and
/// what to do about it.
public enum ROOKInputError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The bytes are not JSON at all.
    case notJSON(detail: String)
    /// A value has the wrong JSON type, for example a string where a number belongs.
    case wrongType(path: String, expected: String, detail: String)
    /// A required key (`days`, `date`, an event's `type`) is absent.
    case missingKey(path: String)
    /// A required value is `null`.
    case nullValue(path: String, expected: String)
    /// A value has the right type but cannot be used (a fraction where a whole number belongs, an
    /// impossible date).
    case invalidValue(path: String, detail: String)
    /// The same date appears twice.
    case duplicateDate(date: LocalDate, firstIndex: Int, secondIndex: Int)
    /// Keys that are no accepted spelling (snake_case, its camelCase, or the ROOK SDK's name): the
    /// first ones found, in file order, and how many there are in all.
    case unknownKeys([ROOKUnknownKey], total: Int)
    /// One field given in two spellings with different values.
    case conflictingSpellings(path: String, keys: [String])

    /// Converts Foundation's decoding error into a message with a readable path.
    init(decodingError error: DecodingError) {
        switch error {
        case let .typeMismatch(type, context):
            self = .wrongType(path: ROOKInputError.path(context.codingPath), expected: ROOKInputError.jsonKind(of: type),
                              detail: trimmedSentence(context.debugDescription))
        case let .valueNotFound(type, context):
            self = .nullValue(path: ROOKInputError.path(context.codingPath), expected: ROOKInputError.jsonKind(of: type))
        case let .keyNotFound(key, context):
            self = .missingKey(path: ROOKInputError.path(context.codingPath + [key]))
        case let .dataCorrupted(context):
            if context.codingPath.isEmpty {
                let underlying = context.underlyingError.map { " (\($0))" } ?? ""
                self = .notJSON(detail: trimmedSentence(context.debugDescription) + underlying)
            } else {
                self = .invalidValue(path: ROOKInputError.path(context.codingPath), detail: trimmedSentence(context.debugDescription))
            }
        @unknown default:
            self = .notJSON(detail: String(describing: error))
        }
    }

    /// `days[3].sleep_summary.hr_resting_bpm_int` from a coding path.
    static func path(_ codingPath: [any CodingKey]) -> String {
        var text = ""
        for key in codingPath {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += (text.isEmpty ? "" : ".") + key.stringValue
            }
        }
        return text.isEmpty ? "the top level" : text
    }

    /// The JSON kind a Swift type is written as.
    static func jsonKind(of type: Any.Type) -> String {
        if type == String.self { return "string" }
        if type == Bool.self { return "true/false" }
        if type == Int.self || type == Double.self || type == Float.self || type == Int64.self { return "number" }
        let name = String(describing: type)
        if name.hasPrefix("Array") || name.hasPrefix("[") && !name.contains(":") { return "array" }
        if name.hasPrefix("Dictionary") || name.contains(":") { return "object" }
        return "object"
    }

    /// What went wrong, where, and what to do.
    public var description: String {
        switch self {
        case let .notJSON(detail):
            return "the ROOK file is not valid JSON: \(detail). Export it again or fix the syntax; the expected shape is {\"days\": [{\"date\": \"YYYY-MM-DD\", \"sleep_summary\": {...}, \"physical_summary\": {...}, \"activity_events\": [...]}]}."
        case let .wrongType(path, expected, detail):
            return "expected \(expected) at \(path) (\(detail)). Fix that value in the ROOK file; numbers are written without quotes, and a field with no data is left out or set to null."
        case let .missingKey(path):
            return "missing required key \(path) in the ROOK file. Add it (days need \"date\"; activity events need \"type\", the SDK's \"activityTypeName\"; a coverage needs \"day_end\", \"day_minutes\" and \"recorded_minutes\")."
        case let .nullValue(path, expected):
            return "expected \(expected) at \(path) but found null. This key is required; give it a value."
        case let .invalidValue(path, detail):
            return "invalid value at \(path): \(detail). Fix that value in the ROOK file (the *_int fields take whole numbers, dates are YYYY-MM-DD)."
        case let .duplicateDate(date, first, second):
            return "date \(date) appears twice in the ROOK file (days[\(first)] and days[\(second)]). Keep one entry per day."
        case let .unknownKeys(keys, total):
            let listed = keys.map(\.description).joined(separator: "; ")
            let more = total > keys.count ? "; and \(total - keys.count) more" : ""
            return "unknown key\(total == 1 ? "" : "s") in the ROOK file: \(listed)\(more). Rename each to the accepted spelling "
                + "(ROOK's snake_case, its camelCase, or the ROOK SDK's field name; `bracelet score --help` lists them), or remove it."
        case let .conflictingSpellings(path, keys):
            return "\(path) gives one field twice with different values, as \(keys.map { "\"\($0)\"" }.joined(separator: " and ")). Keep one of them."
        }
    }
}

/// A key of a ROOK file that is no accepted spelling, with where it is and the nearest one that is.
public struct ROOKUnknownKey: Sendable, Hashable, CustomStringConvertible {
    /// Where the key is, for example `days[0].sleep_summary`.
    public let path: String
    /// The key as written.
    public let key: String
    /// The accepted spelling nearest to it (smallest edit distance).
    public let suggestion: String

    /// Creates a record.
    public init(path: String, key: String, suggestion: String) {
        self.path = path
        self.key = key
        self.suggestion = suggestion
    }

    /// `days[0].sleep_summary: "time_in_bed_secs_int" (did you mean "time_in_bed_seconds_int"?)`.
    public var description: String { "\(path): \"\(key)\" (did you mean \"\(suggestion)\"?)" }
}
