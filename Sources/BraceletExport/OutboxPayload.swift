import BraceletDecoder
import BraceletStore
import BraceletSummaries
import BraceletVitality
import Foundation

/// Turns one outbox entry (a daily summary or a sleep session, as the store enqueued it) into the
/// body of a standard format, so a sync sink can deliver Open mHealth, IEEE 1752, FHIR, ROOK or CSV
/// instead of the project's own envelope.
///
/// Each entry is rendered on its own: a daily entry carries no sleep session (those are entries of
/// their own), so the night's values (HRV, sleep resting heart rate) travel with the session's entry
/// only where its format has a place for them.
public enum OutboxPayload {
    /// The entry's summary in `format`.
    ///
    /// - Parameters:
    ///   - timeZone: the zone the days were cut in; nil uses the day's own fixed offset (daily) or the
    ///     session's offset at its end (sleep session).
    ///   - model: the bracelet model for FHIR's Device, if known.
    /// - Throws: ``ExportError`` when the entry is not a summary this module knows or its JSON is not
    ///   readable.
    public static func render(_ entry: OutboxEntry, as format: ExportFormat, timeZone: TimeZone? = nil,
                              model: String? = nil, options: ExportOptions = ExportOptions()) throws -> Data {
        let summary = try summaryJSON(entry)
        let decoder = JSONDecoder()
        if entry.kind == "daily:\(SummaryRecomputer.dailyKind)" {
            let day: DailySummary
            do { day = try decoder.decode(DailySummary.self, from: summary) } catch {
                throw ExportError.unreadableSummary("outbox entry \(entry.key) holds no readable daily summary (\(error)); deliver it as JSON")
            }
            let clock = try ExportClock.resolve(days: [day], requested: timeZone)
            return try ExportDataset(device: entry.device, model: model, clock: clock, days: [ExportDay(summary: day, sleepSessions: [])])
                .rendered(as: format, options: options)
        }
        guard entry.kind == "sleep_session" else {
            throw ExportError.invalidRequest("outbox entry \(entry.key) is of kind \(entry.kind), which has no \(format.rawValue) form; deliver it as JSON")
        }
        let session: SleepSession
        do { session = try decoder.decode(SleepSession.self, from: summary) } catch {
            throw ExportError.unreadableSummary("outbox entry \(entry.key) holds no readable sleep session (\(error)); deliver it as JSON")
        }
        guard let zone = timeZone ?? TimeZone(secondsFromGMT: session.tzOffset) else {
            throw ExportError.timeZone("sleep session \(entry.key) has the offset \(session.tzOffset) s, not a valid UTC offset; pass the zone")
        }
        return try render(session, device: entry.device, model: model, clock: ExportClock(timeZone: zone, named: timeZone != nil),
                          format: format, options: options)
    }

    static func summaryJSON(_ entry: OutboxEntry) throws -> Data {
        guard let envelope = try? CanonicalJSONParser.parse([UInt8](entry.payload), what: "outbox entry \(entry.key)"),
              let summary = envelope.value(forKey: "summary"), case .object = summary.value else {
            throw ExportError.unreadableSummary("outbox entry \(entry.key) has no summary object in its payload; deliver it as JSON")
        }
        var data: [UInt8] = []
        CanonicalJSON.write(summary, into: &data)
        return Data(data)
    }

    static func render(_ s: SleepSession, device: String, model: String?, clock: ExportClock, format: ExportFormat,
                       options: ExportOptions) throws -> Data {
        let dataset = ExportDataset(device: device, model: model, clock: clock, days: [], slotSeconds: 60)
        let writer = DataPointWriter(dataset: dataset)
        switch format {
        case .omh:
            return try JSONValue.array([OMHExport.sleepEpisode(s, writer)]).jsonData(prettyPrinted: options.prettyPrinted)
        case .ieee1752:
            return try JSONValue.array([IEEE1752Export.sleepEpisode(s, writer), IEEE1752Export.stageSummary(s, writer),
                                        IEEE1752Export.totalSleepTime(s, writer)]).jsonData(prettyPrinted: options.prettyPrinted)
        case .fhir:
            return try FHIRExport.bundle(dataset, user: options.user, sessions: [s]).jsonData(prettyPrinted: options.prettyPrinted)
        case .rook:
            guard s.isMainSleep, let date = LocalDate(iso: s.recordDate) else { return try ExportJSON.encode(ROOKInputFile(days: []), prettyPrinted: options.prettyPrinted) }
            let sleep = ROOKSleepSummary(
                sleepDurationSecondsInt: s.totalSleepDuration, timeInBedSecondsInt: s.timeInBed,
                timeAwakeDuringSleepSecondsInt: s.totalSecsAwake, remSleepDurationSecondsInt: s.totalSecsREM,
                deepSleepDurationSecondsInt: s.totalSecsDeep, lightSleepDurationSecondsInt: s.totalSecsLight,
                sleepEfficiency1To100ScoreInt: s.sleepEfficiency)
            return try ExportJSON.encode(ROOKInputFile(days: [ROOKDay(date: date, source: "bracelet \(device)", sleepSummary: sleep)]), prettyPrinted: options.prettyPrinted)
        case .csv:
            return Data(CSVExport.text(header: CSVExport.sleepHeader, rows: [CSVExport.sleepRow(s, dataset)]).utf8)
        }
    }
}
