import BraceletDecoder
import BraceletStore
import BraceletSummaries
import Foundation

/// The participant record of one device: who wears it (the user id deliveries carry) and the
/// history of each setting its days are computed with. A setting holds from its row's date until
/// the next row of the same setting, so a move to another zone or a birthday keeps the older days
/// as they were computed.
public struct ParticipantRecord: Sendable, Equatable {
    /// The device serial.
    public var device: String
    /// The study participant id, nil when none.
    public var user: String?
    /// Every row of every setting, ordered by setting and date.
    public var rows: [ParticipantSettingRow]

    /// A record.
    public init(device: String, user: String? = nil, rows: [ParticipantSettingRow] = []) {
        self.device = device
        self.user = user
        self.rows = rows
    }

    /// The record of `device` as `store` holds it (empty when it has none).
    public static func load(device: String, from store: Store) throws -> ParticipantRecord {
        ParticipantRecord(device: device, user: try store.user(ofDevice: device), rows: try store.participantSettings(device: device))
    }

    /// Whether the record holds no setting.
    public var hasNoSettings: Bool { rows.isEmpty }

    /// The stored text of `name` holding on `date` (`YYYY-MM-DD`), nil when unknown.
    public func text(_ name: ParticipantSettingName, on date: String) -> String? {
        rows.last { $0.name == name && $0.fromDate <= date }?.value
    }

    /// The zone `date` is cut in, nil when the record has none (or a damaged one).
    public func timeZone(on date: String) -> TimeZone? {
        text(.timeZone, on: date).flatMap(ParticipantProfile.zone(named:))
    }

    /// The settings holding on `date`.
    public func profile(on date: String) throws(ParticipantError) -> ParticipantProfile {
        var texts: [ParticipantSettingName: String] = [:]
        for name in ParticipantSettingName.allCases { texts[name] = text(name, on: date) }
        return try ParticipantProfile(texts: texts, device: device)
    }

    /// The settings holding from the last dated change on: what a new day is computed with.
    public func current() throws(ParticipantError) -> ParticipantProfile {
        try profile(on: "9999-12-31")
    }

    /// The summary configuration of `date`.
    public func configuration(on date: String) throws(ParticipantError) -> SummaryConfiguration {
        try profile(on: date).configuration(device: device)
    }

    /// Every zone the record's days are cut in, each once.
    public func zones() throws(ParticipantError) -> [TimeZone] {
        var zones: [TimeZone] = []
        for row in rows where row.name == .timeZone {
            guard let text = row.value else { continue }
            guard let zone = ParticipantProfile.zone(named: text) else { throw .damaged(device: device, setting: .timeZone, value: text) }
            if !zones.contains(where: { $0.identifier == zone.identifier }) { zones.append(zone) }
        }
        return zones
    }

    /// The local dates that `touched(zone)` gives in some zone of the record and that are cut in
    /// that zone: the days of a device whose zone changed on a date are, before it, the old zone's.
    public func localDates(_ touched: (TimeZone) -> [String]) throws(ParticipantError) -> Set<String> {
        var dates: Set<String> = []
        for zone in try zones() {
            for date in touched(zone) where text(.timeZone, on: date).flatMap(ParticipantProfile.zone(named:))?.identifier == zone.identifier {
                dates.insert(date)
            }
        }
        return dates
    }

    /// The record as lines for people: the user, then each setting's values with the dates from
    /// which they hold.
    public var lines: [String] {
        var lines = ["device \(device)", "  user: \(user ?? "none")"]
        for name in ParticipantSettingName.allCases {
            let history = rows.filter { $0.name == name }
            guard !history.isEmpty else {
                let zonesGiven = rows.contains { ($0.name == .age || $0.name == .hrMax) && $0.value != nil }
                lines.append("  \(name.rawValue): not set" + ((name == .age || name == .hrMax) && zonesGiven ? "" : Self.defaultNote(name)))
                continue
            }
            let values = history.map { row in
                (row.value ?? "unknown") + (row.fromDate == ParticipantSettingRow.always ? "" : " from \(row.fromDate)")
            }
            lines.append("  \(name.rawValue): " + values.joined(separator: ", "))
        }
        return lines
    }

    private static func defaultNote(_ name: ParticipantSettingName) -> String {
        switch name {
        case .timeZone: " (days cannot be computed until it is)"
        case .age, .hrMax: " (zones assume age \(SummaryConfiguration.defaultAge); no movement minutes)"
        case .hrMaxFormula: " (208 - 0.7 x age)"
        case .heightCm: " (\(SummaryConfiguration.defaultHeightCm) cm)"
        case .stepGoal: " (\(SummaryConfiguration.defaultStepGoal))"
        case .slotSeconds: " (\(SummaryConfiguration.defaultSlotSeconds) s)"
        case .minQuality: " (\(SummaryConfiguration.defaultQualityThreshold))"
        }
    }

    /// The record as canonical JSON: `device`, `user` and, per setting, its rows (`from`, `value`).
    public func json() throws -> [UInt8] {
        let root = CanonicalJSON.Node(.object)
        root.child(forKey: "device").value = .string(device)
        root.child(forKey: "user").value = user.map { .string($0) } ?? .null
        let settings = root.child(forKey: "settings")
        settings.value = .object
        for name in ParticipantSettingName.allCases {
            let list = settings.child(forKey: name.rawValue)
            list.value = .array
            for row in rows where row.name == name {
                let item = list.appendElement()
                item.value = .object
                item.child(forKey: "from").value = row.fromDate == ParticipantSettingRow.always ? .null : .string(row.fromDate)
                item.child(forKey: "value").value = row.value.map { .string($0) } ?? .null
            }
        }
        var out: [UInt8] = []
        CanonicalJSON.write(root, into: &out)
        return out
    }
}
