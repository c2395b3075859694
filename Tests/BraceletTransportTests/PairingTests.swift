import BraceletProtocol
@testable import BraceletTransport
import Testing

@Suite("Pairing: management-interface encoding, security rules, failure classification")
struct PairingTests {
    let bracelet = BluetoothAddress("00:AA:01:01:00:01")!

    @Test func passkeyReplyCarriesAddressTypeAndPasskeyLittleEndian() {
        let reply = PairingCommand.passkeyReply(to: ManagementAddress(bracelet, .public), passkey: 999_999)
        // address in wire order, type 1 (LE public), 999999 = 0x000F423F.
        #expect(reply == [0x01, 0x00, 0x01, 0x01, 0xAA, 0x00, 0x01, 0x3F, 0x42, 0x0F, 0x00])
        #expect(PairingCommand.unpair(ManagementAddress(bracelet, .random), disconnect: true) == [0x01, 0x00, 0x01, 0x01, 0xAA, 0x00, 0x02, 0x01])
        #expect(PairingCommand.pair(ManagementAddress(bracelet, .public), capability: .keyboardOnly).last == 0x02)
    }

    @Test func passkeyRequestAndFailureEventsDecode() throws {
        let device = [0x01, 0x00, 0x01, 0x01, 0xAA, 0x00, 0x01] as [UInt8]
        let request = try #require(PairingEvent(ManagementPacket(code: 0x0010, index: 0, parameters: device)))
        #expect(request == .passkeyRequested(ManagementAddress(bracelet, .public)))
        let failed = try #require(PairingEvent(ManagementPacket(code: 0x0011, index: 0, parameters: device + [0x05])))
        #expect(failed == .authenticationFailed(ManagementAddress(bracelet, .public), status: 0x05))
        let down = try #require(PairingEvent(ManagementPacket(code: 0x000C, index: 0, parameters: device + [0x04])))
        #expect(down == .disconnected(ManagementAddress(bracelet, .public), reason: 4))
        // Too short, or not a pairing event at all.
        #expect(PairingEvent(ManagementPacket(code: 0x0011, index: 0, parameters: device)) == nil)
        #expect(PairingEvent(ManagementPacket(code: 0x0012, index: 0, parameters: device + [0, 0, 0, 0, 0, 0, 0])) == nil)
    }

    @Test func longTermKeyRoundTripsThroughNewKeyEventAndLoadCommand() throws {
        var key = try #require(LongTermKey(wireBytes: [UInt8](repeating: 0, count: 36)))
        key.peer = ManagementAddress(bracelet, .public)
        key.keyType = 0x03
        key.central = 1
        key.encryptionSize = 16
        key.ediv = 0x1234
        key.random = 0x0102_0304_0506_0708
        key.value = Array(0x10..<0x20)
        let wire = key.wireBytes
        #expect(wire.count == 36)
        #expect(Array(wire[10..<12]) == [0x34, 0x12])
        #expect(Array(wire[12..<20]) == [0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01])
        #expect(Array(wire[20...]) == Array(0x10..<0x20))
        let event = try #require(PairingEvent(ManagementPacket(code: 0x000A, index: 1, parameters: [0x01] + wire)))
        #expect(event == .newLongTermKey(key, storeHint: true))
        #expect(key.isAuthenticated)
        #expect(PairingCommand.loadLongTermKeys([key, key]) == [0x02, 0x00] + wire + wire)
        #expect(PairingCommand.loadLongTermKeys([]) == [0x00, 0x00])
        #expect(LongTermKey(wireBytes: Array(wire.dropLast())) == nil)
    }

    @Test func requiredLevelFollowsThePairingStateAndDefaultsToPasskey() {
        #expect(BraceletSecurity.requiredLevel(pairingState: 0x00) == .high)
        #expect(BraceletSecurity.requiredLevel(pairingState: 0xAA) == .high)
        #expect(BraceletSecurity.requiredLevel(pairingState: 0x01) == .medium)
        #expect(BraceletSecurity.requiredLevel(pairingState: 0xAB) == .medium)
        #expect(BraceletSecurity.requiredLevel(pairingState: nil) == .high)
        #expect(BraceletSecurity.requiredLevel(pairingState: 0x42) == .high)
    }

    @Test func insufficientLinksGetAuthenticationOrEncryptionErrors() {
        let clear = LinkSecurity(level: .low, keySize: 0)
        let encrypted = LinkSecurity(level: .medium, keySize: 16)
        let authenticated = LinkSecurity(level: .high, keySize: 16)
        #expect(BraceletSecurity.insufficiency(link: clear, required: .high) == .insufficientAuthentication)
        #expect(BraceletSecurity.insufficiency(link: encrypted, required: .high) == .insufficientAuthentication)
        #expect(BraceletSecurity.insufficiency(link: authenticated, required: .high) == nil)
        #expect(BraceletSecurity.insufficiency(link: clear, required: .medium) == .insufficientEncryption)
        #expect(BraceletSecurity.insufficiency(link: encrypted, required: .medium) == nil)
        // A level the kernel reports without a key is not encrypted; no Bluetooth link at all neither.
        #expect(BraceletSecurity.insufficiency(link: LinkSecurity(level: .high, keySize: 0), required: .medium) == .insufficientEncryption)
        #expect(BraceletSecurity.insufficiency(link: nil, required: .high) == .insufficientAuthentication)
    }

    @Test func failuresAreClassifiedByWhetherAPasskeyWasTyped() {
        var outcome = PairingAgent.Outcome()
        #expect(SecureConnector.classify(outcome, address: "B", passkey: 123_456, wanted: .high, reason: .asked) == nil)
        outcome.failure = 0x05
        #expect(SecureConnector.classify(outcome, address: "B", passkey: 123_456, wanted: .high, reason: .asked) == .refused(address: "B", wanted: .high, reason: .asked))
        outcome.passkeyAnswered = true
        #expect(SecureConnector.classify(outcome, address: "B", passkey: 123_456, wanted: .high, reason: .asked) == .wrongPasskey(address: "B", passkey: 123_456))
        var lost = PairingAgent.Outcome()
        lost.disconnectReason = 0x04
        #expect(SecureConnector.classify(lost, address: "B", passkey: 999_999, wanted: .high, reason: .asked) == .bondLost(address: "B"))
        lost.disconnectReason = 0x03
        #expect(SecureConnector.classify(lost, address: "B", passkey: 999_999, wanted: .high, reason: .asked) == nil)
    }

    @Test func justWorksConfirmationsAreConfirmedAndNumericComparisonRefused() throws {
        // The User Confirmation Request the gateway's kernel sent in the VM (Just Works, hint 1),
        // for 00:AA:01:02:00:02 (LE public), value 76124.
        let justWorks: [UInt8] = [0x02, 0x00, 0x02, 0x01, 0xAA, 0x00, 0x01, 0x01, 0x5C, 0x29, 0x01, 0x00]
        let answer = try #require(PairingAgent.confirmationAnswer(justWorks))
        #expect(answer.opcode == ManagementOpcode.userConfirmReply)
        #expect(answer.device.address.description == "00:AA:01:02:00:02")
        #expect(answer.device.wireBytes == Array(justWorks.prefix(7)))
        var numeric = justWorks
        numeric[7] = 0
        #expect(PairingAgent.confirmationAnswer(numeric)?.opcode == ManagementOpcode.userConfirmNegativeReply)
        #expect(PairingAgent.confirmationAnswer(Array(justWorks.prefix(11))) == nil)
    }

    @Test func messagesSayWhatToDo() {
        #expect(PairingError.wrongPasskey(address: "B", passkey: 1_234).description.contains("passkey 001234"))
        #expect(PairingError.bondLost(address: "00:AA:01:01:00:01").description.contains("bracelet unpair 00:AA:01:01:00:01"))
        #expect(PairingError.refused(address: "B", wanted: .high, reason: .asked).description.contains("pairing mode"))
    }

    /// A refused pairing says what to do by why the level was asked for, and each advice names a
    /// step that gets the link the device can give: a level the user chose is left to the device
    /// (auto), a level the device asked for needs pairing mode, an enrolled level is kept (the
    /// device is refused) unless the operator enrols the device again to learn its level anew.
    @Test func aRefusalSaysWhatToDoByWhyTheLevelWasWanted() {
        let chosen = PairingError.refused(address: "00:AA:01:01:00:01", wanted: .medium, reason: .chosen).description
        #expect(chosen.contains("refused to pair for the encrypted link --security asked for"))
        #expect(chosen.contains("Leave out --security (auto"))
        #expect(!chosen.contains("needs --security encrypted"))
        let asked = PairingError.refused(address: "00:AA:01:01:00:01", wanted: .high, reason: .asked).description
        #expect(asked.contains("asked for an encrypted and authenticated link and then refused to pair"))
        #expect(asked.contains("bracelet unpair 00:AA:01:01:00:01"))
        #expect(!asked.contains("--security"))
        let enrolled = PairingError.refused(address: "00:AA:01:01:00:01", wanted: .high, reason: .enrolled).description
        #expect(enrolled.contains("it is enrolled with"))
        #expect(enrolled.contains("offers less is refused"))
        #expect(enrolled.contains("bracelet gateway enroll --device 00:AA:01:01:00:01 --security auto"))
    }

    @Test func aUnixSocketHasNoBluetoothSecurity() throws {
        let (a, b) = try SeqPacketSocket.pairDescriptors()
        let left = SeqPacketSocket(adopting: a), right = SeqPacketSocket(adopting: b)
        defer { left.close(); right.close() }
        #expect(LinkSecurity.current(of: left.descriptor) == nil)
    }
}
