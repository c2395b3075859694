import Foundation

/// One setting of the person wearing a device, as the participant record keeps it: a value that
/// holds from a local date on (until the next row of the same setting).
public struct ParticipantSettingRow: Sendable, Equatable {
    /// The setting (``ParticipantSettingName``).
    public var name: ParticipantSettingName
    /// The first local date (`YYYY-MM-DD`) the value holds for; ``ParticipantSettingRow/always`` for every day.
    public var fromDate: String
    /// The value as text (a zone identifier, a whole number, a height in cm), nil when unknown.
    public var value: String?
    /// When the row was written, Unix seconds.
    public var setAt: Int64

    /// The `fromDate` of a value that holds for every day.
    public static let always = "0000-01-01"

    /// A row.
    public init(name: ParticipantSettingName, fromDate: String, value: String?, setAt: Int64 = 0) {
        self.name = name
        self.fromDate = fromDate
        self.value = value
        self.setAt = setAt
    }
}

/// The settings a participant record keeps (the column `setting` of `participant_settings`).
public enum ParticipantSettingName: String, Sendable, CaseIterable, Hashable, Comparable {
    /// IANA time zone (or fixed offset) the person's days are cut in.
    case timeZone = "tz"
    /// Age in years.
    case age
    /// Measured maximum heart rate, BPM (wins over the age formula).
    case hrMax = "hr_max"
    /// The formula of the maximum heart rate from the age: `208` or `220`.
    case hrMaxFormula = "hrmax_formula"
    /// Body height in cm.
    case heightCm = "height_cm"
    /// Daily step goal.
    case stepGoal = "step_goal"
    /// Summary slot length in seconds.
    case slotSeconds = "slot_seconds"
    /// Lowest sample quality that counts (0-4).
    case minQuality = "min_quality"

    /// Ordered as declared.
    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

extension Store {
    /// The participant record of device `serial`: every row of every setting, ordered by setting
    /// and date. Empty when the device has none (or is unknown).
    public func participantSettings(device serial: String) throws -> [ParticipantSettingRow] {
        try locked { db in
            let statement = try db.prepare("""
                SELECT p.setting, p.from_date, p.value, p.set_at FROM participant_settings p JOIN devices d ON d.id = p.device_id
                WHERE d.serial = ?1 ORDER BY p.setting, p.from_date
                """)
            statement.bind(serial, at: 1)
            var rows: [ParticipantSettingRow] = []
            while try statement.step() {
                guard let name = statement.text(at: 0).flatMap(ParticipantSettingName.init(rawValue:)) else { continue }
                rows.append(ParticipantSettingRow(name: name, fromDate: statement.text(at: 1) ?? ParticipantSettingRow.always,
                                                  value: statement.text(at: 2), setAt: statement.int64(at: 3) ?? 0))
            }
            return rows.sorted { ($0.name, $0.fromDate) < ($1.name, $1.fromDate) }
        }
    }

    /// Writes `rows` into device `serial`'s record (adding the device when new), inside one
    /// transaction (the caller's, when inside ``transaction(_:)``). A row replaces the one of the
    /// same setting and date; with `replacingLater`, the rows of its setting dated on or after it go
    /// first, so the value holds from its date to the last day.
    public func writeParticipantSettings(_ rows: [ParticipantSettingRow], device serial: String, replacingLater: Bool) throws {
        try write { db in
            let id = try deviceIDCreating(db, serial: serial)
            for row in rows {
                guard row.fromDate == ParticipantSettingRow.always || LocalDates.isValid(row.fromDate) else {
                    throw StoreError.invalidInput("\(row.fromDate) is not a date written YYYY-MM-DD")
                }
                if replacingLater {
                    let clear = try db.prepare("DELETE FROM participant_settings WHERE device_id = ?1 AND setting = ?2 AND from_date >= ?3")
                    clear.bind(id, at: 1)
                    clear.bind(row.name.rawValue, at: 2)
                    clear.bind(row.fromDate, at: 3)
                    try clear.run()
                }
                let insert = try db.prepare("""
                    INSERT INTO participant_settings (device_id, setting, from_date, value, set_at) VALUES (?1, ?2, ?3, ?4, ?5)
                    ON CONFLICT (device_id, setting, from_date) DO UPDATE SET value = excluded.value, set_at = excluded.set_at
                    """)
                insert.bind(id, at: 1)
                insert.bind(row.name.rawValue, at: 2)
                insert.bind(row.fromDate, at: 3)
                insert.bind(row.value, at: 4)
                insert.bind(now() / 1000, at: 5)
                try insert.run()
            }
        }
    }

    /// The serials of every device with a participant record or a user id.
    public func participantDevices() throws -> [String] {
        try locked { db in
            let statement = try db.prepare("""
                SELECT serial FROM devices d WHERE d.user_id IS NOT NULL
                    OR EXISTS (SELECT 1 FROM participant_settings p WHERE p.device_id = d.id) ORDER BY serial
                """)
            var serials: [String] = []
            while try statement.step() { if let serial = statement.text(at: 0) { serials.append(serial) } }
            return serials
        }
    }

    /// The id of device `serial`, adding it when the store has not seen it (a device enrolled before
    /// any data arrived: its seen times are the enrolment's until data comes).
    func deviceIDCreating(_ db: Database, serial: String) throws -> Int64 {
        guard !serial.isEmpty else { throw StoreError.invalidInput("device serial is empty; pass the bracelet's serial number.") }
        if let id = try deviceID(db, serial: serial) { return id }
        let add = try db.prepare("INSERT INTO devices (serial, model, first_seen_at, last_seen_at) VALUES (?1, NULL, ?2, ?2) RETURNING id")
        add.bind(serial, at: 1)
        add.bind(now() / 1000, at: 2)
        guard try add.step(), let id = add.int64(at: 0) else {
            throw StoreError.sqlite(code: 0, message: "device insert returned no id", sql: add.sql)
        }
        return id
    }
}
