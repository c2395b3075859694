import Foundation
import Testing
@testable import BraceletStore

/// A database from before the participant record gets one from the settings stamped beside its
/// stored summaries (their basis), so no command falls back to UTC or forgets the age.
@Suite struct ParticipantMigrationTests {
    /// A stored day summary of `date` computed with `basis`, and its vitality row with `age`, in a
    /// schema-10 file, as that schema wrote them (the summary's JSON in its row: today's store
    /// keeps it in `documents`, a table that schema does not have).
    static func storeDay(_ store: Store, device: String, date: String, basis: String, age: Int?) throws {
        let json = #"{"date":"\#(date)"}"#
        try store.locked { db in
            try db.execute("INSERT OR IGNORE INTO devices (serial, first_seen_at, last_seen_at) VALUES ('\(device)', 0, 0)")
            try db.execute("""
                INSERT INTO daily_summaries (device_id, local_date, kind, version, json, content_hash, updated_at, basis, computed_at)
                SELECT id, '\(date)', 'daily', 1, '\(json)', '\(SHA256.hex(Data(json.utf8)))', 0, '\(basis)', 1800000000
                FROM devices WHERE serial = '\(device)'
                """)
        }
        _ = try store.upsertVitalityMetrics(device: device, localDate: date, json: Data(#"{"age":\#(age.map(String.init) ?? "null")}"#.utf8))
    }

    @Test func theRecordOfAnOlderFileComesFromTheBasesOfItsStoredDays() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("old.db")
        do {
            let old = try Store(path: path, migratingTo: 10)
            let newYork = "tz=America/New_York;slot=60;quality=2;hrmax=180.0;height=170.0;goal=10000"
            // Age 40 (208 - 0.7 x 40 = 220 - 40 = 180: the default formula), then a move to Amsterdam on the 18th.
            try Self.storeDay(old, device: "SN1", date: "2026-06-16", basis: newYork, age: 40)
            try Self.storeDay(old, device: "SN1", date: "2026-06-17", basis: newYork, age: 40)
            try Self.storeDay(old, device: "SN1", date: "2026-06-18",
                              basis: "tz=Europe/Amsterdam;slot=60;quality=2;hrmax=180.0;height=170.0;goal=10000", age: 40)
            // Age 35 with 220 - age; no age and the default maximum (unknown zones); a measured maximum.
            try Self.storeDay(old, device: "SN2", date: "2026-06-16", basis: "tz=UTC;slot=300;quality=3;hrmax=185.0;height=182.5;goal=8000", age: 35)
            try Self.storeDay(old, device: "SN3", date: "2026-06-16", basis: "tz=GMT-0400;slot=60;quality=2;hrmax=180.0;height=170.0;goal=10000", age: nil)
            try Self.storeDay(old, device: "SN4", date: "2026-06-16", basis: "tz=UTC;slot=60;quality=2;hrmax=171.0;height=170.0;goal=10000", age: nil)
        }
        let store = try Store(path: path)
        func rows(_ device: String) throws -> [String] {
            try store.participantSettings(device: device).map { "\($0.name.rawValue)@\($0.fromDate)=\($0.value ?? "nil")" }.sorted()
        }
        #expect(try rows("SN1") == ["age@0000-01-01=40", "height_cm@0000-01-01=170.0", "hrmax_formula@0000-01-01=208",
                                    "min_quality@0000-01-01=2", "slot_seconds@0000-01-01=60", "step_goal@0000-01-01=10000",
                                    "tz@0000-01-01=America/New_York", "tz@2026-06-18=Europe/Amsterdam"])
        #expect(try rows("SN2") == ["age@0000-01-01=35", "height_cm@0000-01-01=182.5", "hrmax_formula@0000-01-01=220",
                                    "min_quality@0000-01-01=3", "slot_seconds@0000-01-01=300", "step_goal@0000-01-01=8000",
                                    "tz@0000-01-01=UTC"])
        #expect(try rows("SN3") == ["height_cm@0000-01-01=170.0", "min_quality@0000-01-01=2", "slot_seconds@0000-01-01=60",
                                    "step_goal@0000-01-01=10000", "tz@0000-01-01=GMT-0400"])
        #expect(try rows("SN4").contains("hr_max@0000-01-01=171"))
        #expect(try rows("SN4").allSatisfy { !$0.hasPrefix("age@") })
    }

    @Test func aValueSetForEveryDayReplacesTheDatedOnesAndADatedOneKeepsTheOlderDays() throws {
        let folder = try TemporaryFolder()
        let store = try Store(path: folder.path("p.db"))
        try store.writeParticipantSettings([ParticipantSettingRow(name: .age, fromDate: ParticipantSettingRow.always, value: "40")],
                                           device: "SN1", replacingLater: true)
        try store.writeParticipantSettings([ParticipantSettingRow(name: .age, fromDate: "2026-09-14", value: "41")], device: "SN1", replacingLater: false)
        #expect(try store.participantSettings(device: "SN1").map(\.value) == ["40", "41"])
        try store.writeParticipantSettings([ParticipantSettingRow(name: .age, fromDate: ParticipantSettingRow.always, value: "42")],
                                           device: "SN1", replacingLater: true)
        #expect(try store.participantSettings(device: "SN1").map(\.value) == ["42"])
        #expect(throws: StoreError.self) {
            try store.writeParticipantSettings([ParticipantSettingRow(name: .age, fromDate: "14/09/2026", value: "41")], device: "SN1", replacingLater: false)
        }
    }
}
