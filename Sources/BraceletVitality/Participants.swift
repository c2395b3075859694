import BraceletDecoder
import BraceletStore
import BraceletSummaries
import Foundation

/// A change to a participant record, as `bracelet person set` (or a gateway enrolling a bracelet)
/// asks for it.
public struct ParticipantChange: Sendable, Equatable {
    /// The settings to set (nil: unchanged).
    public var settings: ParticipantProfile
    /// The user id: kept, set or cleared.
    public var user: UserChange
    /// The first local date (`YYYY-MM-DD`) the new values hold for; nil: every day (the setting's
    /// earlier values are replaced, and the report lists them).
    public var from: String?

    /// What happens to the user id.
    public enum UserChange: Sendable, Equatable {
        /// Left as it is.
        case keep
        /// Set to this participant id.
        case set(String)
        /// Removed: later deliveries carry no user.
        case clear
    }

    /// A change.
    public init(settings: ParticipantProfile = ParticipantProfile(), user: UserChange = .keep, from: String? = nil) {
        self.settings = settings
        self.user = user
        self.from = from
    }
}

/// What a change to a participant record did.
public struct ParticipantChangeReport: Sendable {
    /// The record before the change.
    public var before: ParticipantRecord
    /// The record after it.
    public var after: ParticipantRecord
    /// Rows the change replaced (a value set for every day replaces the setting's dated values).
    public var replaced: [ParticipantSettingRow] = []
    /// The stored days whose settings changed, recomputed; nil when none had to be.
    public var recomputed: RecomputeReport?
    /// With a new or cleared user id: how many pending entries of the device now carry it.
    public var pendingEntriesWithUser: Int?
}

/// The participant record's operations: the one entry point for changing who wears a device and
/// with which settings its days are computed (`bracelet person set`, a gateway's enrolment), for
/// reconciling the settings a command that writes was given with the record, and for resolving the
/// settings a read-only command uses.
public enum Participants {
    /// Changes the record of `device` (adding the device when the store has not seen it) and, in the
    /// same transaction, recomputes every stored day whose settings the change alters, with the
    /// settings each day now has; a day whose content is unchanged queues no new outbox version.
    ///
    /// `--age` (``ParticipantProfile/age``) given without a maximum heart rate also ends a measured
    /// maximum from the same date: the age was given so that the zones follow it.
    ///
    /// - Throws: ``ParticipantError`` for a bad date, value or user id (nothing is written);
    ///   ``BraceletStore/StoreError`` or the summary engine's error (likewise).
    public static func set(_ change: ParticipantChange, device: String, store: Store,
                           now: Int64 = Int64(Date().timeIntervalSince1970)) throws -> ParticipantChangeReport {
        let from = change.from ?? ParticipantSettingRow.always
        if let date = change.from, !LocalDates.isValid(date) {
            throw ParticipantError.badRequest("--from \(date) is not a date written YYYY-MM-DD")
        }
        var rows = change.settings.texts.map { ParticipantSettingRow(name: $0.key, fromDate: from, value: $0.value) }
        if change.settings.age != nil, change.settings.hrMax == nil {
            let before = try ParticipantRecord.load(device: device, from: store)
            if before.text(.hrMax, on: from) != nil || before.rows.contains(where: { $0.name == .hrMax && $0.fromDate > from && $0.value != nil }) {
                rows.append(ParticipantSettingRow(name: .hrMax, fromDate: from, value: nil))
            }
        }
        return try apply(rows, replacingLater: change.from == nil, user: change.user, device: device, store: store, now: now)
    }

    /// For a command that writes (`ingest`, `listen`, `recompute`): the record of `device` to compute
    /// its days with, after `given` (the command's flags) was reconciled with it. A device without a
    /// record gets one from `given`; a setting the record does not know is filled in from `given`
    /// (and the stored days it changes are recomputed, see ``set(_:device:store:now:)``); a setting
    /// that disagrees with the record is refused, since cutting the days another way must be asked
    /// for explicitly (`bracelet person set`).
    ///
    /// - Returns: the record, and what filling it in did (nil when nothing was written).
    /// - Throws: ``ParticipantError/conflict(device:setting:given:recorded:)`` before anything is written.
    public static func reconcile(_ given: ParticipantProfile, device: String, store: Store,
                                 now: Int64 = Int64(Date().timeIntervalSince1970)) throws -> (record: ParticipantRecord, filled: ParticipantChangeReport?) {
        let record = try ParticipantRecord.load(device: device, from: store)
        var rows: [ParticipantSettingRow] = []
        for (name, text) in given.texts.sorted(by: { $0.key < $1.key }) {
            let current = record.rows.last { $0.name == name }
            guard let recorded = current?.value else {
                rows.append(ParticipantSettingRow(name: name, fromDate: current?.fromDate ?? ParticipantSettingRow.always, value: text))
                continue
            }
            if try !same(name, recorded, text, device: device) {
                throw ParticipantError.conflict(device: device, setting: name, given: text, recorded: recorded)
            }
        }
        guard !rows.isEmpty else { return (record, nil) }
        let report = try apply(rows, replacingLater: false, user: .keep, device: device, store: store, now: now)
        return (report.after, report)
    }

    /// For a command that only reads: the settings to use on `date` (the record's, each flag given
    /// replacing its setting for this run only), and the flags that disagree with the record (the
    /// command says so).
    public static func reading(_ given: ParticipantProfile, record: ParticipantRecord,
                               on date: String = "9999-12-31") throws -> (profile: ParticipantProfile, overridden: [ParticipantOverride]) {
        let recorded = try record.profile(on: date)
        let recordedTexts = recorded.texts
        var overridden: [ParticipantOverride] = []
        for (name, text) in given.texts.sorted(by: { $0.key < $1.key }) {
            if let stored = recordedTexts[name], try !same(name, stored, text, device: record.device) {
                overridden.append(ParticipantOverride(setting: name, given: text, recorded: stored))
            }
        }
        return (recorded.overridden(by: given), overridden)
    }

    /// Whether two stored texts of `name` are the same value ("170" and "170.0" are).
    static func same(_ name: ParticipantSettingName, _ a: String, _ b: String, device: String) throws -> Bool {
        try ParticipantProfile(texts: [name: a], device: device) == ParticipantProfile(texts: [name: b], device: device)
    }

    private static func apply(_ rows: [ParticipantSettingRow], replacingLater: Bool, user: ParticipantChange.UserChange,
                              device: String, store: Store, now: Int64) throws -> ParticipantChangeReport {
        try store.transaction {
            let before = try ParticipantRecord.load(device: device, from: store)
            // Validated before anything is written: every value in range, and every day's settings usable.
            var proposed = before
            proposed.rows.removeAll { old in
                rows.contains { $0.name == old.name && ($0.fromDate == old.fromDate || (replacingLater && old.fromDate >= $0.fromDate)) }
            }
            proposed.rows = (proposed.rows + rows).sorted { ($0.name, $0.fromDate) < ($1.name, $1.fromDate) }
            for row in rows {
                try proposed.profile(on: row.fromDate).validateRanges(device: device)
            }
            var report = ParticipantChangeReport(before: before, after: before)
            report.replaced = before.rows.filter { old in
                rows.contains { $0.name == old.name }
                    && !proposed.rows.contains { $0.name == old.name && $0.fromDate == old.fromDate && $0.value == old.value }
            }
            try store.writeParticipantSettings(rows, device: device, replacingLater: replacingLater)
            switch user {
            case .keep: break
            case let .set(id):
                do { report.pendingEntriesWithUser = try store.setUser(id, device: device) } catch let error as StoreError {
                    throw ParticipantError.badRequest("\(error)")
                }
            case .clear: report.pendingEntriesWithUser = try store.setUser(nil, device: device)
            }
            report.after = try ParticipantRecord.load(device: device, from: store)
            let dates = try datesToRecompute(before: before, after: report.after, store: store)
            if !dates.isEmpty {
                report.recomputed = try ParticipantRecomputer(record: report.after, now: now).recompute(dates: dates, store: store)
            }
            return report
        }
    }

    /// The days whose stored content the change alters: stored (or pending) days whose settings
    /// differ; when a day's zone changed, the days beside it too (its samples may now fall on them).
    static func datesToRecompute(before: ParticipantRecord, after: ParticipantRecord, store: Store) throws -> [String] {
        let pending = try store.pendingRecompute().first { $0.device == after.device }?.dates ?? []
        let stored = Set(try store.summaryDates(device: after.device) + pending)
        var dates: Set<String> = []
        for date in stored {
            guard let new = try? after.profile(on: date).computationKey(device: after.device) else { continue }
            let old = try? before.profile(on: date).computationKey(device: before.device)
            guard old != new else { continue }
            dates.insert(date)
            if before.text(.timeZone, on: date) != after.text(.timeZone, on: date), let day = LocalDate(iso: date) {
                dates.insert(day.adding(days: -1).description)
                dates.insert(day.adding(days: 1).description)
            }
        }
        return dates.sorted()
    }
}

/// A flag a read-only command was given that disagrees with the participant record: it applies to
/// that run only.
public struct ParticipantOverride: Sendable, Equatable {
    /// The setting.
    public var setting: ParticipantSettingName
    /// The value given.
    public var given: String
    /// The record's value.
    public var recorded: String

    /// What to tell the user (`database` and `device` complete the command that changes the record).
    public func note(database: String, device: String) -> String {
        "\(setting.flag) \(given) applies to this run only: the participant record of \(device) says \(setting.rawValue) \(recorded) "
            + "(change it with `bracelet person set --db \(database) --device \(device) \(setting.flag) \(given)`)"
    }
}
