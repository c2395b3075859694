import BraceletDecoder
import BraceletStore
import BraceletSummaries
import Foundation

/// What recomputing some days wrote.
public struct RecomputeReport: Sendable {
    /// Local dates recomputed.
    public var dates: [String] = []
    /// Daily summaries whose content changed (each wrote an outbox entry).
    public var changedSummaries = 0
    /// Sleep sessions whose content changed (each wrote an outbox entry).
    public var changedSleepSessions = 0
    /// Days whose vitality metrics changed.
    public var changedVitalityDays = 0
    /// Vitality fields left empty, with why, per date.
    public var missingVitalityFields: [String: [MissingField]] = [:]
    /// Diagnostics from the summary engine about the stored samples.
    public var diagnostics: [SummaryDiagnostic] = []
}

/// Recomputes the summaries, sleep sessions and vitality metrics of the local days new samples
/// touched, from what the store holds, and writes the changed ones back (the store writes an outbox
/// entry in the same transaction as each change).
///
/// Only the touched days are recomputed. A day reads its own samples, the 24 hours before it
/// (a night that ends on that date starts the evening before) and the 18 hours after it (a night
/// that starts that evening must be seen whole to be assigned to the date it ends on).
public struct SummaryRecomputer: Sendable {
    /// Summary rules (time zone, zones, quality threshold).
    public var configuration: SummaryConfiguration
    /// Age for the vitality metrics.
    public var age: Int

    /// A recomputer with these rules.
    public init(configuration: SummaryConfiguration, age: Int) {
        self.configuration = configuration
        self.age = age
    }

    /// The summary kind under which a day's summaries are stored and forwarded.
    public static let dailyKind = "daily"

    /// Recomputes `dates` (YYYY-MM-DD, local) of `device` and stores what changed.
    public func recompute(device: String, dates: [String], store: Store) throws -> RecomputeReport {
        var report = RecomputeReport()
        for date in Set(dates).sorted() {
            guard let range = LocalDates.unixSecondsRange(of: date, in: configuration.timeZone) else { continue }
            // A night that ends on this date began the evening before; one that begins this evening
            // must be seen whole (until its stop tomorrow) or it would be cut at midnight and stored
            // as a nap of this date.
            let from = range.lowerBound - 86_400
            let to = range.upperBound + 18 * 3600
            let slots = try store.slots(device: device, from: from, to: to)
            let beats = try store.beats(device: device, fromMs: from * 1000, toMs: to * 1000)
            var engine = SummaryEngine(configuration: configuration)
            report.diagnostics += engine.add(slots: slots, beats: beats, now: range.upperBound + 86_400)
            guard let day = engine.day(date) else { continue }
            report.dates.append(date)
            if case .changed = try store.upsertDailySummary(device: device, localDate: date, kind: Self.dailyKind, value: day) {
                report.changedSummaries += 1
            }
            let sessions = engine.sleepSessions.filter { $0.recordDate == date }
            for session in sessions {
                let json = try JSONEncoder.sorted.encode(session)
                if case .changed = try store.upsertSleepSession(device: device, start: session.startSession, stop: session.stopSession,
                                                                localDate: date, json: json) {
                    report.changedSleepSessions += 1
                }
            }
            if let input = BraceletDay(summary: day, sleepSessions: sessions, summarySlotSeconds: configuration.summarySlotSeconds) {
                let (metrics, missing) = vitalityMetrics(for: input, age: age)
                if try store.upsertVitalityMetrics(device: device, localDate: date, json: StoredVitalityMetrics.encode(metrics)) {
                    report.changedVitalityDays += 1
                }
                report.missingVitalityFields[date] = missing
            }
        }
        return report
    }
}

extension JSONEncoder {
    /// An encoder with sorted keys, so equal content gives equal bytes (and equal hashes).
    static var sorted: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }
}
