import Testing
@testable import BraceletStore

/// The one rule for user ids: a study id is taken, one that carries personal data is refused with
/// the reason unless a team says it must, and one that is not an id at all is refused always.
@Suite struct UserIDTests {
    @Test func studyIdsAreTaken() throws {
        for id in ["P-0042", "site-b:P-0042", "S01.P042", "42", "12345678", "P_2026_06_01", "a@b", "P-0042@site-b", "DE12", "NL91"] {
            #expect(UserID.personalData(in: id) == nil, "\(id)")
            try UserID.check(id)
        }
    }

    @Test func personalDataIsRefusedWithTheReasonAndWhatToGive() {
        let cases: [(id: String, kind: String)] = [
            ("alice@example.org", "an e-mail address"), ("Alice.Smith@Hospital.example.co.uk", "an e-mail address"),
            ("study:alice@example.org", "an e-mail address"),
            ("+31612345678", "a phone number or another personal number"), ("06-12345678", "a phone number or another personal number"),
            ("555.123.4567", "a phone number or another personal number"), ("0612345678", "a phone number or another personal number"),
            ("tel:+4930123456", "a phone number or another personal number"), ("123-45-6789", "a phone number or another personal number"),
            ("4111111111111111", "a phone number or another personal number"),
            ("NL91ABNA0417164300", "a bank account number (IBAN)"), ("DE89-3704-0044-0532-0130-00", "a bank account number (IBAN)"),
        ]
        for (id, kind) in cases {
            #expect(UserID.personalData(in: id) == kind, "\(id)")
            #expect(throws: UserIDError.personalData(id, kind: kind)) { try UserID.check(id) }
        }
        let message = UserIDError.personalData("alice@example.org", kind: "an e-mail address").description
        #expect(message.contains("\"alice@example.org\" looks like an e-mail address"))
        #expect(message.contains("must carry no personal data"))
        #expect(message.contains("P-0042") && message.contains("--allow-personal-user-id"))
    }

    @Test func aTeamThatMustMayAllowPersonalDataButNeverAMalformedId() throws {
        // What an allowed id looks like comes back, for the warning that it travels with every delivery.
        #expect(try UserID.check("alice@example.org", allowingPersonalData: true) == "an e-mail address")
        #expect(try UserID.check("P-0042", allowingPersonalData: true) == nil)
        try UserID.check("06-12345678", allowingPersonalData: true)
        // A leading + or a space is no character of an id: refused whatever the team allows.
        #expect(throws: UserIDError.malformed("+31612345678")) { try UserID.check("+31612345678", allowingPersonalData: true) }
        for id in ["", String(repeating: "a", count: 65), "P 42", "P-42\n", "P\u{1B}[31m", "é"] {
            #expect(!UserID.isWellFormed(id), "\(id)")
            #expect(throws: UserIDError.malformed(id)) { try UserID.check(id) }
        }
        // Control characters are shown escaped, never written raw into a message.
        #expect(UserIDError.malformed("P\u{1B}[31m").description.contains("\"P\\u{1B}[31m\""))
    }

    @Test func anIBANNeedsItsCheckDigitsToHold() {
        #expect(UserID.personalData(in: "NL91ABNA0417164300") != nil)
        #expect(UserID.personalData(in: "NL92ABNA0417164300") == nil)
        #expect(UserID.personalData(in: "STUDY01PARTICIPANT42") == nil)
    }

    /// The store keeps the id's form whoever calls it: an id with a space is refused before a row changes.
    @Test func theStoreRefusesAMalformedId() throws {
        let folder = try TemporaryFolder()
        let store = try Store(path: folder.path("u.db"))
        #expect(throws: StoreError.invalidInput(UserIDError.malformed("P 42").description)) {
            try store.setUser("P 42", device: "SN000001")
        }
        #expect(try store.user(ofDevice: "SN000001") == nil)
        try store.setUser("P-42", device: "SN000001")
        #expect(try store.user(ofDevice: "SN000001") == "P-42")
    }
}
