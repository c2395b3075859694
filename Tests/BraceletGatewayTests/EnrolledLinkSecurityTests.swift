@testable import BraceletGateway
@testable import BraceletStore
import BraceletTransport
import Foundation
import Testing

/// The link an enrolled device needs is the enrolment's: given with `gateway enroll --security` or
/// learned over a secured link, only ever raised by what a link proved, and a device that does not
/// give it is refused with one `link_refused` operator event per run of refusals. (The refusal on a
/// real link is proven in the VM: tools/ble-vm/gateway-guest.sh.)
@Suite(.serialized) struct EnrolledLinkSecurityTests {
    @Test func enrolSecurityIsKeptAcrossReEnrolmentsAndForgottenOnlyByAuto() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let db = folder + "/g.db", address = "00:AA:01:01:00:01", endpoint = "ble:00:AA:01:01:00:01"

        let learned = try bracelet(["gateway", "enroll", "--db", db, "--device", address, "--address-type", "public"])
        #expect(learned.status == 0, "\(learned.err)")
        #expect(learned.out.hasPrefix("enrolled \(endpoint)\n"))
        #expect(learned.out.contains("\n  link security: learned from what the device answers, and kept once its link was secured\n"), "\(learned.out)")
        let store = try Store(path: db)
        #expect(try store.enrolments().first?.linkSecurity == nil)

        let given = try bracelet(["gateway", "enroll", "--db", db, "--device", address, "--security", "authenticated"])
        #expect(given.status == 0, "\(given.err)")
        #expect(given.out.hasPrefix("updated \(endpoint)\n"))
        #expect(given.out.contains("\n  link security: an authenticated link is required; a device that offers less is refused\n"), "\(given.out)")
        #expect(try store.enrolments().first?.linkSecurity == .authenticated)

        // Another setting given later leaves the requirement as it is.
        let other = try bracelet(["gateway", "enroll", "--db", db, "--device", address, "--age", "50"])
        #expect(other.status == 0, "\(other.err)")
        #expect(try store.enrolments().first?.linkSecurity == .authenticated)
        #expect(try store.enrolments().first?.addressType == "public")
        let status = try bracelet(["gateway", "status", "--db", db, "--json"])
        #expect(status.out.contains(#""link_security":"authenticated""#), "\(status.out)")
        let table = try bracelet(["gateway", "status", "--db", db])
        #expect(table.out.contains("    link security: authenticated required\n"), "\(table.out)")

        // auto forgets it: learned again from the device's answers.
        let reset = try bracelet(["gateway", "enroll", "--db", db, "--device", address, "--security", "auto"])
        #expect(reset.status == 0, "\(reset.err)")
        #expect(try store.enrolments().first?.linkSecurity == nil)
        #expect(try bracelet(["gateway", "status", "--db", db, "--json"]).out.contains(#""link_security":null"#))

        // A unix: socket cannot be encrypted: the option is refused, nothing enrolled.
        let unix = try bracelet(["gateway", "enroll", "--db", db, "--via", "unix:/tmp/x.sock", "--security", "encrypted"])
        #expect(unix.status != 0)
        #expect(unix.err.contains("--security apply to --device only"), "\(unix.err)")
        #expect(try store.enrolments().count == 1)
    }

    @Test func aLearnedRequirementIsOnlyEverRaised() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try Store(path: folder + "/g.db")
        let endpoint = "ble:00:AA:01:02:00:02"
        _ = try store.enrol(GatewayEnrolment(endpoint: endpoint))
        #expect(try store.raiseEnrolledLinkSecurity(endpoint: endpoint, to: .encrypted))
        #expect(try !store.raiseEnrolledLinkSecurity(endpoint: endpoint, to: .encrypted))
        #expect(try store.raiseEnrolledLinkSecurity(endpoint: endpoint, to: .authenticated))
        // A link that proved less (a device offering only encryption) never lowers it.
        #expect(try !store.raiseEnrolledLinkSecurity(endpoint: endpoint, to: .encrypted))
        #expect(try store.enrolments().first?.linkSecurity == .authenticated)
        // The operator may set it, also lower (enrol --security); nil forgets it.
        try store.setEnrolledLinkSecurity(endpoint: endpoint, .encrypted)
        #expect(try store.enrolments().first?.linkSecurity == .encrypted)
        try store.setEnrolledLinkSecurity(endpoint: endpoint, nil)
        #expect(try store.enrolments().first?.linkSecurity == nil)
        // Not enrolled: nothing written.
        #expect(try !store.raiseEnrolledLinkSecurity(endpoint: "ble:00:AA:01:03:00:03", to: .encrypted))
    }

    /// The store refuses a value no build writes (the column's check), so a damaged requirement
    /// can never be read as none.
    @Test func theColumnTakesOnlyTheKnownLevels() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try Store(path: folder + "/g.db")
        _ = try store.enrol(GatewayEnrolment(endpoint: "ble:00:AA:01:02:00:02"))
        #expect(throws: (any Error).self) {
            try store.locked { db in try db.execute("UPDATE gateway_enrolments SET link_security = 'none'") }
        }
        #expect(try store.enrolments().first?.linkSecurity == nil)
    }

    /// The levels a link's security proves and an enrolment asks the kernel for.
    @Test func levelsMapBothWays() {
        #expect(RadioLink.level(.encrypted) == .medium)
        #expect(RadioLink.level(.authenticated) == .high)
        #expect(RadioLink.enrolled(LinkSecurity(level: .medium, keySize: 16)) == .encrypted)
        #expect(RadioLink.enrolled(LinkSecurity(level: .high, keySize: 16)) == .authenticated)
        #expect(RadioLink.enrolled(LinkSecurity(level: .low, keySize: 0)) == nil)
        // A level without a key is not an encrypted link: it proves nothing.
        #expect(RadioLink.enrolled(LinkSecurity(level: .high, keySize: 0)) == nil)
    }

    /// A refusal is an operator event once per run of refusals, saying what was required and what
    /// the operator can do; a completed sync between two runs makes the next one a new event.
    @Test func aRefusedDeviceRaisesLinkRefusedOncePerRun() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try Store(path: folder + "/g.db")
        let endpoint = "ble:00:AA:01:01:00:01"
        _ = try store.enrol(GatewayEnrolment(endpoint: endpoint, timeZone: "UTC"))
        var enrolment = try #require(try store.enrolments().first)
        enrolment.serial = "V2SIM001"
        let events = OperatorEvents(store: store, thresholds: .init(), clock: .wall)
        let refusal = PairingError.bondLost(address: "00:AA:01:01:00:01")
        var seen: [GatewayEvent] = []
        events.linkRefused(enrolment, required: .authenticated, refusal: refusal) { seen.append($0) }
        events.linkRefused(enrolment, required: .authenticated, refusal: refusal) { seen.append($0) }
        let written = try writtenEvents(store)
        #expect(written.count == 1 && seen.count == 1)
        let event = try #require(written.first)
        #expect(event.event == "link_refused" && event.device == "V2SIM001")
        #expect(event.detail.contains("did not give the authenticated link its enrolment requires"))
        #expect(event.detail.contains("bracelet unpair 00:AA:01:01:00:01"))
        #expect(event.detail.hasSuffix("Unless the enrolled device was reset, another device is using its address: leave it refused."))
        enrolment.lastSyncAt = enrolment.enrolledAt + 1_000
        events.linkRefused(enrolment, required: .authenticated, refusal: refusal) { seen.append($0) }
        #expect(try writtenEvents(store).count == 2)
    }
}
