import Foundation
import Testing
@testable import BraceletStore

/// The migration that gives an enrolment one column for every participant setting given with it
/// moves the zone, age and maximum heart rate a schema-14 file kept in columns of their own into
/// it, each as the participant record stores it; nothing given stays nothing.
@Suite struct EnrolmentSettingsMigrationTests {
    @Test func aSchema14FileKeepsEveryEnrolledSetting() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("old.db")
        do {
            let old = try Store(path: path, migratingTo: 14)
            try old.locked { db in
                try db.execute("""
                    INSERT INTO gateway_enrolments (endpoint, user_id, tz, age, hr_max, passkey, enrolled_at) VALUES
                        ('unix:/a', 'P-1', 'Europe/Amsterdam', 54, NULL, NULL, 1),
                        ('unix:/b', NULL, NULL, NULL, 182, NULL, 2),
                        ('ble:C0:11:22:33:44:55', NULL, NULL, NULL, NULL, 123456, 3)
                    """)
            }
        }
        let store = try Store(path: path)
        #expect(try store.schemaVersion() == Migrations.latestVersion)
        let rows = Dictionary(uniqueKeysWithValues: try store.enrolments().map { ($0.endpoint, $0) })
        #expect(rows["unix:/a"]?.settings == [.timeZone: "Europe/Amsterdam", .age: "54"])
        #expect(rows["unix:/a"]?.user == "P-1")
        #expect(rows["unix:/b"]?.settings == [.hrMax: "182"])
        #expect(rows["ble:C0:11:22:33:44:55"]?.settings == [:])
        #expect(rows["ble:C0:11:22:33:44:55"]?.passkey == 123_456)
        // The link security it needs is not known yet: learned from what the device answers.
        #expect(rows["ble:C0:11:22:33:44:55"]?.linkSecurity == nil)
        // Stored as the store writes it: canonical JSON, NULL for none.
        let texts = try store.locked { db in
            let statement = try db.prepare("SELECT coalesce(settings, 'NULL') FROM gateway_enrolments ORDER BY endpoint")
            var texts: [String] = []
            while try statement.step() { texts.append(statement.text(at: 0) ?? "") }
            return texts
        }
        #expect(texts == ["NULL", #"{"age":"54","tz":"Europe/Amsterdam"}"#, #"{"hr_max":"182"}"#])
        #expect(try Store.enrolmentSettingsText(try #require(rows["unix:/a"]).settings) == texts[1])
    }

    /// A setting given once stays until given again; an age drops a pending maximum heart rate (as
    /// `person set` does in the record), a maximum keeps the age.
    @Test func reEnrolmentMergesTheSettingsGiven() throws {
        let folder = try TemporaryFolder()
        let store = try Store(path: folder.path("g.db"))
        #expect(try store.enrol(GatewayEnrolment(endpoint: "unix:/x", settings: [.timeZone: "UTC", .stepGoal: "8000", .age: "50"])))
        #expect(try !store.enrol(GatewayEnrolment(endpoint: "unix:/x", settings: [.hrMax: "175", .heightCm: "181.0"])))
        #expect(try store.enrolments().first?.settings == [.timeZone: "UTC", .stepGoal: "8000", .age: "50", .hrMax: "175", .heightCm: "181.0"])
        #expect(try !store.enrol(GatewayEnrolment(endpoint: "unix:/x", age: 51)))
        #expect(try store.enrolments().first?.settings == [.timeZone: "UTC", .stepGoal: "8000", .age: "51", .heightCm: "181.0"])
        try store.clearEnrolmentSettings(endpoint: "unix:/x")
        #expect(try store.enrolments().first?.settings == [:])
    }

    /// A settings column that cannot be read is an error naming the enrolment, never no settings.
    @Test func damagedSettingsAreAnError() throws {
        let folder = try TemporaryFolder()
        let store = try Store(path: folder.path("g.db"))
        _ = try store.enrol(GatewayEnrolment(endpoint: "unix:/x", timeZone: "UTC"))
        try store.locked { db in try db.execute(#"UPDATE gateway_enrolments SET settings = '{"shoe_size":"44"}'"#) }
        #expect(throws: StoreError.self) { try store.enrolments() }
    }
}
