import ArgumentParser
import Testing
@testable import BraceletCLI

/// Every option that takes a user id applies the one rule: an e-mail address is refused with the
/// reason before anything is stored, and taken with --allow-personal-user-id.
@Suite struct UserIDOptionTests {
    static let commands: [(option: String, parse: @Sendable ([String]) throws -> Void)] = [
        ("--user", { _ = try PersonSetCommand.parse(["--db", "x.db", "--device", "SN1"] + $0) }),
        ("--user", { _ = try GatewayEnrollCommand.parse(["--db", "x.db", "--via", "unix:/tmp/x.sock"] + $0) }),
        ("--set-user", { _ = try SyncCommand.parse(["--db", "x.db", "--device", "SN1", "--once"] + $0) }),
        ("--user", { _ = try ExportCommand.parse(["--db", "x.db", "--format", "fhir"] + $0) }),
    ]

    @Test func anEmailAddressIsRefusedWithTheReasonEverywhereAUserIdIsGiven() {
        for (option, parse) in Self.commands {
            do {
                try parse([option, "alice@example.org"])
                Issue.record("\(option) alice@example.org was taken")
            } catch {
                let message = Bracelet.message(for: error)
                #expect(message.contains("\(option): user id \"alice@example.org\" looks like an e-mail address"), "\(message)")
                #expect(message.contains("must carry no personal data"), "\(message)")
            }
        }
    }

    @Test func aTeamThatMustPassesAllowPersonalUserId() throws {
        for (option, parse) in Self.commands {
            try parse([option, "alice@example.org", "--allow-personal-user-id"])
            try parse([option, "P-0042"])
        }
    }

    @Test func aMalformedIdIsRefusedEvenWhenPersonalDataIsAllowed() {
        for (option, parse) in Self.commands {
            #expect(throws: (any Error).self, "\(option)") { try parse([option, "P 42", "--allow-personal-user-id"]) }
        }
    }
}
