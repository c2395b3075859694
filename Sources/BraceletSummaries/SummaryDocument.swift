import BraceletDecoder
import Foundation

/// The JSON document of `bracelet summarize`: one object per local day and the sleep sessions.
public struct SummaryDocument: Sendable, Equatable, Codable {
    /// The time zone the days were cut in (IANA identifier, `UTC`, or a fixed offset as `UTC+02:00`; documents stored before it was named so say `GMT+0200`).
    public var timeZone: String
    /// One summary per local day, oldest first.
    public var days: [DailySummary]
    /// Every sleep session of those days (main sleeps and naps), oldest first.
    public var sleepSessions: [SleepSession]

    /// Creates a document.
    public init(timeZone: String, days: [DailySummary], sleepSessions: [SleepSession]) {
        self.timeZone = timeZone
        self.days = days
        self.sleepSessions = sleepSessions
    }

    /// The document as JSON, written by the canonical writer (``BraceletDecoder/CanonicalJSON``) like
    /// every JSON the package writes: sorted keys, `null` for every missing value; indented with
    /// ``BraceletDecoder/CanonicalJSON/prettyPrinted(_:)`` for people, the canonical bytes otherwise.
    ///
    /// - Throws: ``BraceletDecoder/CanonicalJSONError`` when a value is NaN or infinite.
    public func jsonData(prettyPrinted: Bool = true) throws -> Data {
        let canonical = try CanonicalJSON.bytes(of: self, what: "the summary document")
        return Data(prettyPrinted ? CanonicalJSON.prettyPrinted(canonical) : canonical)
    }
}
