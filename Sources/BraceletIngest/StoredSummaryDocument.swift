import BraceletDecoder
import BraceletStore
import BraceletSummaries
import BraceletVitality
import Foundation

/// Why the stored summaries cannot stand for a recomputation from the raw rows.
public enum StoredSummariesUnavailable: Error, Sendable, Equatable, CustomStringConvertible {
    /// No daily summary is stored (for the requested date).
    case noSummaries
    /// A day's summary was stored without saying what it was computed from (an older build).
    case unstamped(date: String)
    /// A day's summary was computed with other settings (time zone, zones, slot length, ...).
    case otherSettings(date: String)
    /// A day's summary was computed before the day ended, and the day has ended since.
    case computedBeforeDayEnded(date: String)

    public var description: String {
        switch self {
        case .noSummaries: "no stored summaries"
        case let .unstamped(date): "the stored summary of \(date) was written by an older build"
        case let .otherSettings(date): "the stored summary of \(date) was computed with other settings (--tz, --age, --hr-max, ...)"
        case let .computedBeforeDayEnded(date): "the stored summary of \(date) was computed before that day ended"
        }
    }
}

/// The `summarize` document (every day, or one date) made of the daily summaries and sleep
/// sessions the ingest pipeline stored for a device, without reading a raw row.
///
/// It equals what ``SummaryEngine/summarize(slots:beats:configuration:date:sourceOffsetSeconds:now:)``
/// computes from the stored rows, because the pipeline recomputes every day new rows touch in the
/// transaction that stores them, and ``load(from:device:configuration:date:now:)`` serves it only
/// when every selected day was computed with the requested settings and, if the day has ended,
/// after it ended.
public struct StoredSummaryDocument: Sendable, Equatable {
    /// The time zone the days were cut in (as ``SummaryDocument/timeZone``).
    public var timeZone: String
    /// The stored daily summaries, oldest first, still compressed: read them with a ``DayReader``
    /// (each is checked when read, so a reader holds one day at a time).
    public var days: [PackedSummary]
    /// The current sleep sessions of those days, oldest first (canonical JSON).
    public var sleepSessions: [StoredSleepSession]

    /// Reads the stored document, or says why it cannot stand for a recomputation (then the caller
    /// summarises the raw rows, or tells the user to run `bracelet recompute` with these settings).
    ///
    /// - Throws: ``StoreError/corrupt(path:detail:)`` when a stored sleep session no longer matches
    ///   its content hash (a day is checked when it is read: ``DayReader``).
    public static func load(from store: Store, device: String, configuration: SummaryConfiguration, date: String? = nil,
                            now: Int64 = Int64(Date().timeIntervalSince1970)) throws -> Result<StoredSummaryDocument, StoredSummariesUnavailable> {
        try load(from: store, device: device, timeZone: SummaryConfiguration.name(of: configuration.timeZone), date: date, now: now) { _ in configuration }
    }

    /// Like ``load(from:device:configuration:date:now:)``, each day with the settings `record`
    /// holds on it (a day before a move or a birthday with the older ones).
    ///
    /// - Throws: ``BraceletVitality/ParticipantError`` when a stored day's settings cannot be used.
    public static func load(from store: Store, record: ParticipantRecord, date: String? = nil,
                            now: Int64 = Int64(Date().timeIntervalSince1970)) throws -> Result<StoredSummaryDocument, StoredSummariesUnavailable> {
        let zone = SummaryConfiguration.name(of: try record.configuration(on: date ?? "9999-12-31").timeZone)
        return try load(from: store, device: record.device, timeZone: zone, date: date, now: now) { try record.configuration(on: $0) }
    }

    private static func load(from store: Store, device: String, timeZone: String, date: String?, now: Int64,
                             configuration: (String) throws -> SummaryConfiguration) throws -> Result<StoredSummaryDocument, StoredSummariesUnavailable> {
        var bases: [String: String] = [:]
        func basis(on date: String) throws -> String {
            if let known = bases[date] { return known }
            let basis = try configuration(date).summaryBasis
            bases[date] = basis
            return basis
        }
        let days = try store.packedDailySummaries(device: device, kind: SummaryRecomputer.dailyKind, date: date)
        guard !days.isEmpty else { return .failure(.noSummaries) }
        for day in days {
            guard let stamp = day.stamp else { return .failure(.unstamped(date: day.localDate)) }
            guard try stamp.basis == basis(on: day.localDate) else { return .failure(.otherSettings(date: day.localDate)) }
            // The basis names the time zone, so the day's end is the one its summary was cut with.
            if let end = LocalDates.unixSecondsRange(of: day.localDate, in: try configuration(day.localDate).timeZone)?.upperBound,
               stamp.computedAt < end, now >= end {
                return .failure(.computedBeforeDayEnded(date: day.localDate))
            }
        }
        // Each date's sessions are the current ones of the settings that date has.
        var sessions: [StoredSleepSession] = []
        for wanted in Set(bases.values).sorted() {
            sessions += try store.currentSleepSessions(device: device, basis: wanted, date: date).filter { try basis(on: $0.localDate) == wanted }
        }
        sessions.sort { ($0.localDate, $0.start) < ($1.localDate, $1.start) }
        for session in sessions { try Self.checkFiled(session.json, key: "recordDate", localDate: session.localDate, what: "sleep session", store: store.path) }
        return .success(StoredSummaryDocument(timeZone: timeZone, days: days, sleepSessions: sessions))
    }

    /// Reads the days of a document one after the other into one buffer (a ``DocumentReader``),
    /// each checked against its content hash and against the date it is filed under. One owner at
    /// a time; two threads reading alternate days take one each.
    public final class DayReader {
        private let reader = DocumentReader()

        /// A reader with no buffer yet.
        public init() {}

        /// The canonical JSON of `day`; valid until the next call.
        ///
        /// - Throws: ``StoreError/corrupt(path:detail:)`` when it cannot be read, does not match its
        ///   content hash, or is not of the date it is filed under.
        public func read(_ day: PackedSummary) throws -> UnsafeRawBufferPointer {
            let json = try reader.read(day.document)
            try StoredSummaryDocument.checkFiled(json, key: "date", localDate: day.localDate, what: "summary", store: day.document.path)
            return json
        }
    }

    /// The content hash covers the JSON, not the row's key: a row whose date was changed would put
    /// a day in the wrong place, so the JSON must hold `"KEY":"LOCALDATE"`.
    static func checkFiled(_ json: some ContiguousBytes, key: String, localDate: String, what: String, store path: String) throws {
        guard json.withUnsafeBytes({ ByteSearch.firstOffset(of: Array(#""\#(key)":"\#(localDate)""#.utf8), in: $0) }) != nil else {
            throw StoreError.corrupt(path: path, detail: "a stored \(what) filed under \(localDate) is not of that date; run `bracelet db check --db \(path)`")
        }
    }

    /// The canonical JSON of every day, oldest first, each checked as ``DayReader`` checks it.
    public func dayJSON() throws -> [Data] {
        let reader = DayReader()
        return try days.map { Data(try reader.read($0)) }
    }

    /// The document in canonical JSON: `{"days":[...],"sleepSessions":[...],"timeZone":"..."}`.
    public func canonicalJSON() throws -> [UInt8] {
        let days = try dayJSON()
        var out: [UInt8] = []
        out.reserveCapacity(days.reduce(64) { $0 + $1.count + 1 } + sleepSessions.reduce(0) { $0 + $1.json.count + 1 })
        out += Array(#"{"days":["#.utf8)
        for (index, day) in days.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out += day
        }
        out += Array(#"],"sleepSessions":["#.utf8)
        for (index, session) in sleepSessions.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out += session.json
        }
        out += Array(#"],"timeZone":"#.utf8)
        CanonicalJSON.appendString(timeZone, to: &out)
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// The bytes ``SummaryDocument/jsonData(prettyPrinted:)`` writes for the same document with
    /// `prettyPrinted: true` (see ``CanonicalJSON/prettyPrinted(_:)``).
    public func prettyJSON() throws -> [UInt8] {
        CanonicalJSON.prettyPrinted(try canonicalJSON())
    }

    /// The document as values (for the table view).
    public func decoded() throws -> SummaryDocument {
        let decoder = JSONDecoder()
        return SummaryDocument(timeZone: timeZone,
                               days: try dayJSON().map { try decoder.decode(DailySummary.self, from: $0) },
                               sleepSessions: try sleepSessions.map { try decoder.decode(SleepSession.self, from: $0.json) })
    }
}
