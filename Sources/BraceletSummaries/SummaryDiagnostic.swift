import Foundation

/// A problem found in the input that did not stop the summary: the sample, row or cell was skipped
/// or used as described, and the rest of the data was still summarised.
public struct SummaryDiagnostic: Sendable, Equatable, CustomStringConvertible {
    /// What kind of problem.
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        /// Samples already stored with identical values (ignored; adding twice changes nothing).
        case duplicate
        /// A sample with the same start time but different values (the first stored one is kept).
        case conflictingDuplicate
        /// A sample that starts after "now" (dropped).
        case futureSample
        /// A sample or beat time outside 2000...2100 (dropped): a corrupt or unset clock.
        case implausibleTime
        /// A sample interval outside 1...3600 s (dropped).
        case badInterval
        /// A sample interval that does not divide 86 400 s (used; slots do not line up with midnight).
        case intervalNotDividingDay
        /// The configured summary slot does not divide the day (the last slot of each day is short).
        case slotNotDividingDay
        /// The source's UTC offset changed within one local day (summaries still use the configured zone).
        case timeZoneChanged
        /// A value outside its physiological range (treated as missing, counted in the day's diagnostics).
        case outOfRange
        /// A CSV cell that is not a number in range (used as nil).
        case csvBadCell
        /// A CSV row that cannot be used at all (bad timestamp).
        case csvBadRow
        /// A CSV row with fewer cells than the header (missing cells used as nil).
        case csvMissingCell
        /// A CSV row with more cells than the header (extra cells ignored).
        case csvExtraCells
        /// A CSV header column that is not a known key (the column is ignored).
        case csvUnknownColumn
    }

    /// What kind of problem.
    public var kind: Kind
    /// The sample time concerned, Unix seconds, when there is one.
    public var time: Int64?
    /// The 1-based line number in a CSV file, when there is one.
    public var row: Int?
    /// The CSV column name, when there is one.
    public var column: String?
    /// Full human message: what was wrong, where, and what happens / what to do.
    public var message: String

    /// Creates a diagnostic.
    public init(kind: Kind, time: Int64? = nil, row: Int? = nil, column: String? = nil, message: String) {
        self.kind = kind
        self.time = time
        self.row = row
        self.column = column
        self.message = message
    }

    /// The message.
    public var description: String { message }
}

/// `2026-03-29T01:00:00Z` for a Unix time.
func utcText(_ time: Int64) -> String {
    localTimestamp(time, in: TimeZone(secondsFromGMT: 0) ?? .current).replacingOccurrences(of: "+00:00", with: "Z")
}
