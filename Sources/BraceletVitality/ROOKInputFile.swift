import BraceletDecoder
import Foundation

/// The file `bracelet score --rook FILE.json` reads: many days of ROOK summaries.
///
/// ```json
/// {"days": [
///   {"date": "2026-01-05", "source": "whoop",
///    "sleep_summary": {"sleep_duration_seconds_int": 27000, ...},
///    "physical_summary": {"steps_int": 8500, ...},
///    "activity_events": [{"type": "moderate", "duration_seconds_int": 1800}]}
/// ]}
/// ```
/// Days may come in any order and may have gaps; a date may appear only once. Keys may be written
/// in snake_case, in its camelCase (`sleepSummary`, `sleepDurationSecondsInt`) or with the ROOK
/// SDK's own field names (`sleepDurationSeconds`, `hrvAvgSdnnNumber`, `stepsPerDayNumber`, ...);
/// the SDK's fields the score does not use are accepted and not read. Any other key is an error
/// naming it and the nearest accepted spelling. A `coverage` beside `date` (what
/// `bracelet export --format rook` writes) marks how much of the day was recorded, so partial days
/// are left out as `score --db` leaves them out.
public struct ROOKInputFile: Sendable, Hashable, Codable {
    /// The days in the file, in file order.
    public var days: [ROOKDay]
    /// Fields given twice in two spellings with the same value (read once).
    public var warnings: [String] = []

    /// JSON names (the warnings are not part of the file).
    enum CodingKeys: String, CodingKey { case days }

    /// Creates a file value.
    public init(days: [ROOKDay], warnings: [String] = []) {
        self.days = days
        self.warnings = warnings
    }

    /// The keys read, one line per level of the file (`key/SDK name`, `*` read but not scored),
    /// for `bracelet score --help`.
    public static var keysRead: String { ROOKKeys.help }

    /// Decodes and checks a ROOK input file. Wrong types, missing required keys, bad dates and
    /// repeated dates are errors that name the place in the file (for example
    /// `days[3].sleep_summary.hr_resting_bpm_int`).
    public static func decode(_ data: Data) throws(ROOKInputError) -> ROOKInputFile {
        var file: ROOKInputFile
        do {
            // Every accepted spelling is renamed to snake_case; a key that is none of them is an error.
            let normalized = try ROOKKeys.normalize(try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]))
            file = try JSONDecoder().decode(ROOKInputFile.self, from: JSONSerialization.data(withJSONObject: normalized.json,
                                                                                           options: [.fragmentsAllowed]))
            file.warnings = normalized.warnings
        } catch let error as ROOKInputError {
            throw error
        } catch let error as DecodingError {
            let converted = ROOKInputError(decodingError: error)
            if case .notJSON = converted { throw .notJSON(detail: syntaxErrorLocation(in: data)) }
            throw converted
        } catch {
            throw .notJSON(detail: syntaxErrorLocation(in: data))
        }
        var firstIndex: [LocalDate: Int] = [:]
        for (index, day) in file.days.enumerated() {
            if let first = firstIndex[day.date] {
                throw .duplicateDate(date: day.date, firstIndex: first, secondIndex: index)
            }
            firstIndex[day.date] = index
        }
        return file
    }

    /// Foundation's decoder says only "not valid JSON"; the serializer names the character, which is
    /// turned into line and column here.
    static func syntaxErrorLocation(in data: Data) -> String {
        do {
            _ = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            return "the top level must be an object {\"days\": [...]}"
        } catch {
            let detail = ((error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String).map(trimmedSentence)
                ?? "syntax error"
            guard let range = detail.range(of: "around character "),
                  let offset = Int(detail[range.upperBound...].prefix { $0.isNumber })
            else { return detail }
            var line = 1, column = 1
            for byte in data.prefix(offset) {
                if byte == UInt8(ascii: "\n") { line += 1; column = 1 } else { column += 1 }
            }
            return "\(detail) (line \(line), column \(column))"
        }
    }
}

/// A message without its final period, so it can be embedded in a longer sentence.
func trimmedSentence(_ text: String) -> String {
    var t = text
    while t.hasSuffix(".") { t.removeLast() }
    return t
}
