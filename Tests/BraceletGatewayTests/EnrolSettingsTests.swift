import BraceletGateway
import BraceletSimulator
import BraceletStore
import BraceletVitality
import Foundation
import Testing

/// `gateway enroll` takes the person's settings as `person set` does, keeps all of them until the
/// first sync writes them into the participant record, and a later enrolment never undoes what
/// `person set` changed since.
@Suite(.serialized) struct EnrolSettingsTests {
    @Test func enrolledSettingsReachTheRecordAndALaterPersonSetSurvivesAReEnrolment() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let db = folder + "/g.db"
        let served = try ServedBracelet(directory: folder, serial: "GWENR001", model: .v2, slowMilliseconds: nil)
        defer { served.stop() }
        let endpoint = "unix:" + served.path

        let first = try bracelet(["gateway", "enroll", "--db", db, "--via", endpoint, "--user", "P-7", "--tz", "Europe/Amsterdam",
                                            "--age", "50", "--height", "181", "--step-goal", "8000", "--slot-seconds", "300",
                                            "--hrmax-formula", "220", "--min-quality", "3"])
        #expect(first.status == 0, "\(first.err)")
        // What was stored is echoed, then where it goes.
        #expect(first.out == "enrolled \(endpoint)\n  user: P-7\n  tz: Europe/Amsterdam\n  age: 50\n  hrmax_formula: 220\n  height_cm: 181.0\n"
                + "  step_goal: 8000\n  slot_seconds: 300\n  min_quality: 3\n"
                + "its settings go into the participant record of the bracelet when its first sync reads its serial\n")
        let store = try Store(path: db)
        #expect(try store.enrolments().first?.settings == [.timeZone: "Europe/Amsterdam", .age: "50", .heightCm: "181.0", .stepGoal: "8000",
                                                            .slotSeconds: "300", .hrMaxFormula: "220", .minQuality: "3"])

        // The first sync reads the serial and writes every setting into the record.
        func sync() {
            let gateway = RunningGateway(store: store, clock: .wall, intervalSeconds: 1)
            #expect(gateway.wait { gateway.completedSyncs(endpoint) >= 1 })
            gateway.stop()
        }
        sync()
        let record = try ParticipantRecord.load(device: "GWENR001", from: store).current()
        #expect(record == ParticipantProfile(timeZone: TimeZone(identifier: "Europe/Amsterdam"), age: 50, hrMaxFormula: .classic, heightCm: 181,
                                             stepGoal: 8_000, slotSeconds: 300, minQuality: 3))
        #expect(try store.user(ofDevice: "GWENR001") == "P-7")
        #expect(try store.enrolments().first?.settings == [:])

        // person set changes the step goal; a re-enrolment naming only the age changes only the age.
        let set = try bracelet(["person", "set", "--db", db, "--device", "GWENR001", "--step-goal", "12000"])
        #expect(set.status == 0, "\(set.err)")
        let again = try bracelet(["gateway", "enroll", "--db", db, "--via", endpoint, "--age", "51"])
        #expect(again.status == 0, "\(again.err)")
        #expect(again.out.hasPrefix("updated \(endpoint)\n"))
        sync()
        let after = try ParticipantRecord.load(device: "GWENR001", from: store).current()
        #expect(after == ParticipantProfile(timeZone: TimeZone(identifier: "Europe/Amsterdam"), age: 51, hrMaxFormula: .classic, heightCm: 181,
                                            stepGoal: 12_000, slotSeconds: 300, minQuality: 3))
        #expect(try store.user(ofDevice: "GWENR001") == "P-7")
    }

    /// A value out of its range is refused before anything is stored, saying which and why.
    @Test func anInvalidSettingIsRefusedAtEnrolment() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let db = folder + "/g.db"
        for (option, value) in [("--slot-seconds", "30"), ("--height", "-5"), ("--tz", "Mars/Olympus"), ("--min-quality", "9")] {
            let run = try bracelet(["gateway", "enroll", "--db", db, "--via", "unix:/nowhere.sock", option, value])
            #expect(run.status != 0, "\(option) \(value)")
            #expect(run.err.contains("Error:") && !run.err.contains("Fatal"), "\(option) \(value): \(run.err)")
        }
        let both = try bracelet(["gateway", "enroll", "--db", db, "--via", "unix:/x", "--age", "50", "--hr-max", "180"])
        #expect(both.status != 0 && both.err.contains("give --age or --hr-max, not both"))
        if FileManager.default.fileExists(atPath: db) { #expect(try Store(path: db).enrolments().isEmpty) }
        let help = try bracelet(["gateway", "enroll", "--help"])
        for option in ["--tz", "--age", "--hr-max", "--hrmax-formula", "--height", "--step-goal", "--slot-seconds", "--min-quality", "--user", "--passkey"] {
            #expect(help.out.contains(option), "enroll --help names \(option)")
        }
    }
}
