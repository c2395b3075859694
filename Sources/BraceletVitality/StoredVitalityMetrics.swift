import BraceletDecoder
import BraceletSummaries
import Foundation

/// Reads one stored day of vitality metrics (a `vitality_metrics` row: local date + the JSON of
/// ``VitalityRawMetrics``, with `age` null when it was not known, and the day's `coverage`) back
/// into a ``DatedVitalityMetrics`` for the window builder.
///
/// Kept free of store types so `bracelet score --db` can be wired by passing the rows the store
/// returns straight through this function.
public enum StoredVitalityMetrics {
    /// Decodes one row. `localDate` is `YYYY-MM-DD`; `json` is a `VitalityRawMetrics` object whose
    /// `age` may be null (then `age` is used) and which may carry the day's `coverage`.
    public static func decode(localDate: String, json: Data, age: Int? = nil) throws(StoredVitalityMetricsError) -> DatedVitalityMetrics {
        guard let date = LocalDate(iso: localDate) else { throw .badDate(localDate) }
        // The row is patched as a tree and written back by the one JSON writer; only the decoding
        // into the typed value goes through JSONDecoder.
        guard let object = try? CanonicalJSONParser.parse([UInt8](json), what: "the stored vitality row"),
              case .object = object.value else {
            throw .badJSON(localDate: localDate, detail: "the row is not a JSON object")
        }
        if isMissing(object.value(forKey: "age")) {
            guard let age else { throw .badJSON(localDate: localDate, detail: "the row has no age and none was given") }
            object.child(forKey: "age").value = .int(Int64(age))
        }
        do {
            let metrics = try JSONDecoder().decode(VitalityRawMetrics.self, from: bytes(of: object))
            var coverage: DayCoverage?
            if let value = object.value(forKey: "coverage"), !isMissing(value) {
                coverage = try JSONDecoder().decode(DayCoverage.self, from: bytes(of: value))
            }
            // Rows written before the reasons were stored have none: their days list no missing fields.
            var missing: [MissingField] = []
            if let value = object.value(forKey: "missing"), !isMissing(value) {
                missing = try JSONDecoder().decode([MissingField].self, from: bytes(of: value))
            }
            return DatedVitalityMetrics(date: date, metrics: metrics, missing: missing, coverage: coverage)
        } catch let error as DecodingError {
            throw .badJSON(localDate: localDate, detail: describe(error))
        } catch {
            throw .badJSON(localDate: localDate, detail: String(describing: error))
        }
    }

    /// Encodes a day for the store with the canonical JSON writer: the metrics with `age` null
    /// when it is not known (the age is given when scoring), the day's coverage, and why each
    /// empty metric is empty, so `score --db` lists the days with missing inputs as a score from
    /// the delivered summaries (`score --postgres`) does.
    ///
    /// - Throws: ``BraceletDecoder/CanonicalJSONError`` when a value is not a finite number.
    static func encode(_ metrics: VitalityRawMetrics, age: Int?, coverage: DayCoverage, missing: [MissingField]) throws -> Data {
        try CanonicalJSON.encode(StoredDay(metrics: metrics, age: age, coverage: coverage, missing: missing),
                                 what: "the vitality metrics")
    }

    /// Whether `node` is absent or JSON `null`.
    private static func isMissing(_ node: CanonicalJSON.Node?) -> Bool {
        guard let node else { return true }
        if case .null = node.value { return true }
        return false
    }

    /// The canonical bytes of a parsed tree, for JSONDecoder.
    private static func bytes(of node: CanonicalJSON.Node) -> Data {
        var out: [UInt8] = []
        CanonicalJSON.write(node, into: &out)
        return Data(out)
    }

    /// A decoding error as "field: what was wrong", without the ROOK file's advice.
    static func describe(_ error: DecodingError) -> String {
        switch error {
        case let .typeMismatch(type, context):
            return "\(ROOKInputError.path(context.codingPath)) is not \(ROOKInputError.jsonKind(of: type))"
        case let .valueNotFound(type, context):
            return "\(ROOKInputError.path(context.codingPath)) is null where \(ROOKInputError.jsonKind(of: type)) belongs"
        case let .keyNotFound(key, context):
            return "\(ROOKInputError.path(context.codingPath + [key])) is missing"
        case let .dataCorrupted(context):
            return "\(ROOKInputError.path(context.codingPath)): \(trimmedSentence(context.debugDescription))"
        @unknown default:
            return String(describing: error)
        }
    }

    /// Encodes metrics the way ``decode(localDate:json:)`` reads them, with the canonical JSON writer
    /// (sorted keys, nil as null).
    ///
    /// - Throws: ``BraceletDecoder/CanonicalJSONError`` when a value is not a finite number.
    public static func encode(_ metrics: VitalityRawMetrics) throws -> Data {
        try CanonicalJSON.encode(metrics, what: "the vitality metrics")
    }
}

/// The stored form of a day: the metrics' own keys, then `age` (null when unknown), `coverage` and
/// `missing` (the empty metrics with their reasons).
private struct StoredDay: Encodable {
    let metrics: VitalityRawMetrics
    let age: Int?
    let coverage: DayCoverage
    let missing: [MissingField]

    private enum CodingKeys: String, CodingKey { case age, coverage, missing }

    func encode(to encoder: any Encoder) throws {
        try metrics.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        if let age { try container.encode(age, forKey: .age) } else { try container.encodeNil(forKey: .age) }
        try container.encode(coverage, forKey: .coverage)
        try container.encode(missing, forKey: .missing)
    }
}

/// Why a stored vitality row could not be read.
public enum StoredVitalityMetricsError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The row's local date is not `YYYY-MM-DD`.
    case badDate(String)
    /// The row's JSON is not a `VitalityRawMetrics` object.
    case badJSON(localDate: String, detail: String)

    /// What went wrong and what to do.
    public var description: String {
        switch self {
        case let .badDate(text):
            return "stored vitality row has local date \"\(text)\", not YYYY-MM-DD. The database row is damaged; run bracelet recompute --db PATH to rewrite the stored days."
        case let .badJSON(date, detail):
            return "stored vitality metrics for \(date) in the database cannot be read (\(detail)). The row is damaged; run bracelet recompute --db PATH to rewrite it."
        }
    }
}
