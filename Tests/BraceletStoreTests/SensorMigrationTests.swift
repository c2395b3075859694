import Foundation
import Testing
@testable import BraceletStore

/// The migration that keeps standard sensors as devices: a schema-15 file's devices and
/// enrolments come through unchanged, as bracelets (no sensor, nothing kept), and a sensor's
/// stream is then counted in its enrolment.
@Suite struct SensorMigrationTests {
    @Test func aSchema15FileKeepsItsRowsAndCountsASensorsStreamAfterwards() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("old.db")
        do {
            let old = try Store(path: path, migratingTo: 15)
            _ = try old.insertSlots([sampleSlot(start: 10)], device: "SN1", model: .v2)
            _ = try old.enrol(GatewayEnrolment(endpoint: "unix:/a", user: "P-1", timeZone: "UTC"))
        }
        let store = try Store(path: path)
        #expect(try store.schemaVersion() == Migrations.latestVersion)
        #expect(try store.devices() == [DeviceRecord(serial: "SN1", model: .v2, firstSeenAt: try store.devices()[0].firstSeenAt,
                                                     lastSeenAt: try store.devices()[0].lastSeenAt, sensor: nil)])
        let before = try #require(try store.enrolments().first)
        #expect(before.sensor == nil && before.samplesKept == 0 && before.lastSampleAt == nil && before.settings == [.timeZone: "UTC"])

        try store.recordSensor(device: "HRSIM001", name: "Bracelet Labs HRS-SIM")
        try store.recordSensorProgress(endpoint: "unix:/a", stored: 5, lastSampleAt: 1_000, battery: 80, serial: "HRSIM001", sensor: "heart-rate")
        try store.recordSensorProgress(endpoint: "unix:/a", stored: 4, lastSampleAt: 2_000, battery: nil, serial: "HRSIM001", sensor: "heart-rate")
        let after = try #require(try store.enrolments().first)
        #expect(after.samplesKept == 9 && after.lastSampleAt == 2_000 && after.battery == 80)
        #expect(after.serial == "HRSIM001" && after.sensor == "heart-rate" && after.state == "streaming")
        #expect(try store.devices().first { $0.serial == "HRSIM001" }?.sensor == "Bracelet Labs HRS-SIM")
        // A count never goes below zero: the column refuses it.
        #expect(throws: StoreError.self) {
            try store.locked { db in try db.execute("UPDATE gateway_enrolments SET samples_kept = -1") }
        }
    }
}
