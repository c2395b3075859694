import Foundation

/// Reads one stored day of vitality metrics (a `vitality_metrics` row: local date + the JSON of
/// ``VitalityRawMetrics``) back into a ``DatedVitalityMetrics`` for the window builder.
///
/// Kept free of store types so `bracelet score --db` can be wired by passing the rows the store
/// returns straight through this function.
public enum StoredVitalityMetrics {
    /// Decodes one row. `localDate` is `YYYY-MM-DD`; `json` is a `VitalityRawMetrics` object.
    public static func decode(localDate: String, json: Data) throws(StoredVitalityMetricsError) -> DatedVitalityMetrics {
        guard let date = LocalDate(iso: localDate) else { throw .badDate(localDate) }
        do {
            let metrics = try JSONDecoder().decode(VitalityRawMetrics.self, from: json)
            return DatedVitalityMetrics(date: date, metrics: metrics)
        } catch let error as DecodingError {
            throw .badJSON(localDate: localDate, detail: ROOKInputError(decodingError: error).description)
        } catch {
            throw .badJSON(localDate: localDate, detail: String(describing: error))
        }
    }

    /// Encodes metrics the way ``decode(localDate:json:)`` reads them (sorted keys, nil as null):
    /// what the sync layer's vitality sink stores.
    public static func encode(_ metrics: VitalityRawMetrics) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(metrics)) ?? Data("{}".utf8)
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
            return "stored vitality row has local date \"\(text)\", not YYYY-MM-DD. The database row is damaged; re-run sync to rewrite it."
        case let .badJSON(date, detail):
            return "stored vitality metrics for \(date) cannot be read: \(detail) Re-run sync to rewrite that day."
        }
    }
}
