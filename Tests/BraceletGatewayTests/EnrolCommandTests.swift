import Foundation
import Testing

/// What `gateway enroll` and `gateway status` say to a person at the terminal.
@Suite struct EnrolCommandTests {
    /// The enrolment is echoed as stored: the passkey as the six digits the bracelet asks for.
    @Test func enrolEchoesWhatItStoredWithThePasskeyAsSixDigits() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let db = folder + "/g.db"
        let enrolled = try bracelet(["gateway", "enroll", "--db", db, "--device", "C0:11:22:33:44:55", "--passkey", "12345",
                                     "--user", "P-0042", "--tz", "UTC", "--age", "54"])
        #expect(enrolled.status == 0, "\(enrolled.err)")
        let lines = enrolled.out.split(separator: "\n").map(String.init)
        #expect(lines.first == "enrolled ble:C0:11:22:33:44:55")
        for line in ["  user: P-0042", "  passkey: 012345 (entered when the bracelet asks for it)", "  address type: what its advertisement says",
                     "  tz: UTC", "  age: 54"] {
            #expect(lines.contains(line), "\(line) in \(lines)")
        }
        // Enrolled again without --passkey: the stored one stays, and is shown.
        let again = try bracelet(["gateway", "enroll", "--db", db, "--device", "C0:11:22:33:44:55", "--age", "55"])
        #expect(again.out.contains("updated ble:C0:11:22:33:44:55\n"))
        #expect(again.out.contains("  passkey: 012345 "))
        #expect(again.out.contains("  age: 55\n"))
        let fresh = try bracelet(["gateway", "enroll", "--db", db, "--device", "C0:11:22:33:44:66", "--tz", "UTC"])
        #expect(fresh.out.contains("  passkey: 999999 (the manual's; give --passkey if it was changed)\n"))
    }

    /// `--tz UTC` is kept and shown as UTC, not as Foundation's GMT.
    @Test func utcStaysUTC() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let db = folder + "/p.db"
        #expect(try bracelet(["person", "set", "--db", db, "--device", "SN000001", "--tz", "UTC", "--age", "40"]).status == 0)
        let shown = try bracelet(["person", "show", "--db", db])
        #expect(shown.out.contains("  tz: UTC\n"), "\(shown.out)")
    }

    /// `--tz utc` is UTC whatever its letter case, and a fixed offset is shown as `UTC-04:00`, not as
    /// Foundation's `GMT-0400`.
    @Test func lowerCaseUTCAndFixedOffsetsAreShownAsUTC() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let db = folder + "/p.db"
        #expect(try bracelet(["person", "set", "--db", db, "--device", "SN000002", "--tz", "utc", "--age", "40"]).status == 0)
        #expect(try bracelet(["person", "set", "--db", db, "--device", "SN000003", "--tz=-04:00", "--age", "40"]).status == 0)
        let shown = try bracelet(["person", "show", "--db", db])
        #expect(shown.out.contains("  tz: UTC\n") && shown.out.contains("  tz: UTC-04:00\n") && !shown.out.contains("GMT"), "\(shown.out)")
        // The name shown is taken back as the same zone: no conflict with the record.
        #expect(try bracelet(["person", "set", "--db", db, "--device", "SN000003", "--tz", "UTC-04:00"]).status == 0)
    }

    /// A missing gateway database and an empty one point to `gateway enroll`, not to `ingest`.
    @Test func anEmptyGatewayPointsToGatewayEnroll() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let db = folder + "/g.db"
        let missing = try bracelet(["gateway", "status", "--db", db])
        #expect(missing.status != 0)
        #expect(missing.err.contains("no database at \(db): enrol a bracelet with `bracelet gateway enroll --db \(db) --device ADDRESS"), "\(missing.err)")
        #expect(!missing.err.contains("ingest"))
        #expect(try bracelet(["gateway", "enroll", "--db", db, "--via", "unix:" + folder + "/x.sock"]).status == 0)
        #expect(try bracelet(["gateway", "remove", "--db", db, "--via", "unix:" + folder + "/x.sock"]).status == 0)
        let empty = try bracelet(["gateway", "status", "--db", db])
        #expect(empty.status == 0)
        #expect(empty.out.hasPrefix("bracelets: 0\n"))
        #expect(empty.err.contains("no bracelet is enrolled in \(db): enrol a bracelet with `bracelet gateway enroll --db \(db)"), "\(empty.err)")
        let people = try bracelet(["person", "show", "--db", db])
        #expect(people.status == 0)
        #expect(people.err.contains("holds no participant record yet: `bracelet person set --db \(db) --device SERIAL"), "\(people.err)")
        let outbox = try bracelet(["sync", "--db", db, "--status"])
        #expect(outbox.status == 0)
        #expect(outbox.err.contains("the outbox of \(db) is empty: storing a bracelet's data queues its summaries"), "\(outbox.err)")
        // A device's days come from a capture, a sync by hand or the gateway: each is named.
        let days = try bracelet(["summarize", "--db", db])
        #expect(days.status != 0)
        for command in ["bracelet ingest CAPTURE --db \(db)", "bracelet listen --device ADDRESS --db \(db)", "bracelet gateway enroll --db \(db)"] {
            #expect(days.err.contains(command), "\(command) in \(days.err)")
        }
    }
}
