import BraceletStore
import BraceletSummaries
import Foundation

/// Recomputes days of one device, each with the settings its participant record holds on that
/// day: the days are grouped by their settings and each group goes through one
/// ``SummaryRecomputer``.
public struct ParticipantRecomputer: Sendable {
    /// The record the days are computed with.
    public var record: ParticipantRecord
    /// The current time, Unix seconds.
    public var now: Int64

    /// A recomputer of `record`'s days.
    public init(record: ParticipantRecord, now: Int64 = Int64(Date().timeIntervalSince1970)) {
        self.record = record
        self.now = now
    }

    /// Recomputes `dates` (YYYY-MM-DD, local) and stores what changed (an outbox entry for each
    /// summary whose content changed).
    ///
    /// - Throws: ``ParticipantError`` when a day's settings cannot be used (no zone, a damaged
    ///   value), before anything is written; ``BraceletStore/StoreError`` or the engine's error.
    public func recompute(dates: [String], store: Store, daysDone: ((Int) -> Void)? = nil) throws -> RecomputeReport {
        var groups: [(configuration: SummaryConfiguration, age: Int?, dates: [String])] = []
        var index: [String: Int] = [:]
        for date in Set(dates).sorted() {
            let profile = try record.profile(on: date)
            let key = try profile.computationKey(device: record.device)
            if let at = index[key] {
                groups[at].dates.append(date)
            } else {
                index[key] = groups.count
                groups.append((try profile.configuration(device: record.device), profile.age, [date]))
            }
        }
        var report = RecomputeReport()
        for group in groups {
            let part = try SummaryRecomputer(configuration: group.configuration, age: group.age, now: now)
                .recompute(device: record.device, dates: group.dates, store: store, daysDone: daysDone)
            report.merge(part)
        }
        report.dates.sort()
        return report
    }

    /// What to tell the user when days are stored without what the zones need (no age and no
    /// maximum heart rate in the record), or nil when nothing is missing.
    public func missingZoneInputWarning(database: String) -> String? {
        guard let profile = try? record.current(), profile.age == nil, profile.hrMax == nil else { return nil }
        return "no age or maximum heart rate known for \(record.device): the heart-rate zones assume age \(SummaryConfiguration.defaultAge) "
            + "and the vitality metrics are stored without movement minutes (they depend on the zones); everything else is stored. "
            + "Run `bracelet person set --db \(database) --device \(record.device) --age N` (or --hr-max N) to complete them."
    }
}
