import BraceletProtocol
import Testing
import BraceletTransport

/// Round trips: each vector is laid out by hand from the Core spec (Vol 3, Part F, 3.4), so both
/// `parse` and `encode` are checked against independent bytes.
@Suite struct ATTPDURoundTripTests {
    static let vectors: [(String, ATTPDU)] = [
        // Write Request on handle 0x002A failed: Insufficient Encryption.
        ("01 12 2A 00 0F", .errorResponse(requestOpcode: .writeRequest, handle: 0x002A, code: .insufficientEncryption)),
        ("01 0A 03 00 02", .errorResponse(requestOpcode: .readRequest, handle: 0x0003, code: .readNotPermitted)),
        ("02 F7 00", .exchangeMTURequest(clientRxMTU: 247)),
        ("03 17 00", .exchangeMTUResponse(serverRxMTU: 23)),
        ("04 01 00 FF FF", .findInformationRequest(startHandle: 0x0001, endHandle: 0xFFFF)),
        ("08 01 00 FF FF 03 28", .readByTypeRequest(startHandle: 1, endHandle: 0xFFFF, attributeType: .uuid16(0x2803))),
        ("0A 03 00", .readRequest(handle: 3)),
        ("0B 42 61 6E 64", .readResponse(value: [0x42, 0x61, 0x6E, 0x64])),
        ("0B", .readResponse(value: [])),
        ("10 01 00 FF FF 00 28", .readByGroupTypeRequest(startHandle: 1, endHandle: 0xFFFF, groupType: .uuid16(0x2800))),
        ("12 04 00 01 00", .writeRequest(handle: 4, value: [0x01, 0x00])),
        ("13", .writeResponse),
        ("52 10 00 A1 00 00 00 00 B4", .writeCommand(handle: 0x0010, value: [0xA1, 0, 0, 0, 0, 0xB4])),
        ("1B 03 00 16 48 00 04", .handleValueNotification(handle: 3, value: [0x16, 0x48, 0x00, 0x04])),
        ("1B 03 00", .handleValueNotification(handle: 3, value: [])),
        ("1D 09 00 02", .handleValueIndication(handle: 9, value: [0x02])),
        ("1E", .handleValueConfirmation),
        ("0C 05 00 16 00", .other(opcode: .readBlobRequest, parameters: [0x05, 0x00, 0x16, 0x00])),
    ]

    @Test(arguments: 0..<vectors.count)
    func parsesAndEncodesVector(_ index: Int) throws {
        let (text, expected) = Self.vectors[index]
        let bytes = hex(text)
        let parsed = try ATTPDU.parse(bytes)
        #expect(parsed == expected)
        #expect(parsed.encode() == bytes)
        #expect(parsed.opcode.rawValue == bytes[0])
    }

    @Test func findInformationResponseWith16BitUUIDs() throws {
        // format 1; handle 3 -> 0x2902 (CCCD), handle 4 -> 0x2901
        let bytes = hex("05 01 03 00 02 29 04 00 01 29")
        let pdu = try ATTPDU.parse(bytes)
        guard case .findInformationResponse(let r) = pdu else { Issue.record("wrong case \(pdu)"); return }
        #expect(r.format == 1)
        #expect(r.entries == [ATTHandleUUID(handle: 3, uuid: .uuid16(0x2902)), ATTHandleUUID(handle: 4, uuid: .uuid16(0x2901))])
        #expect(pdu.encode() == bytes)
    }

    @Test func findInformationResponseWith128BitUUID() throws {
        // format 2; 128-bit UUIDs are little-endian on the wire.
        let bytes = hex("05 02 10 00 FB 34 9B 5F 80 00 00 80 00 10 00 00 37 2A 00 00")
        let pdu = try ATTPDU.parse(bytes)
        guard case .findInformationResponse(let r) = pdu else { Issue.record("wrong case \(pdu)"); return }
        #expect(r.format == 2)
        #expect(r.entries.count == 1)
        #expect(r.entries[0].handle == 0x0010)
        #expect(r.entries[0].uuid.description == "00002A37-0000-1000-8000-00805F9B34FB")
        #expect(r.entries[0].uuid.expanded128 == BluetoothUUID.uuid16(0x2A37).expanded128)
        #expect(pdu.encode() == bytes)
    }

    @Test func readByTypeResponseWithTwoCharacteristicDeclarations() throws {
        // length 7: handle(2) + properties(1) + value handle(2) + UUID16(2)
        let bytes = hex("09 07 02 00 10 03 00 37 2A 05 00 02 06 00 19 2A")
        let pdu = try ATTPDU.parse(bytes)
        let expected = try ATTReadByTypeResponse(entries: [
            ATTHandleValue(handle: 2, value: [0x10, 0x03, 0x00, 0x37, 0x2A]),
            ATTHandleValue(handle: 5, value: [0x02, 0x06, 0x00, 0x19, 0x2A]),
        ])
        #expect(pdu == .readByTypeResponse(expected))
        #expect(pdu.encode() == bytes)
    }

    @Test func readByGroupTypeResponseWithTwoServices() throws {
        // length 6: handle(2) + end group handle(2) + UUID16(2): 0x180D heart rate, 0x180F battery
        let bytes = hex("11 06 01 00 05 00 0D 18 06 00 08 00 0F 18")
        let pdu = try ATTPDU.parse(bytes)
        let expected = try ATTReadByGroupTypeResponse(entries: [
            ATTGroupValue(handle: 1, endGroupHandle: 5, value: [0x0D, 0x18]),
            ATTGroupValue(handle: 6, endGroupHandle: 8, value: [0x0F, 0x18]),
        ])
        #expect(pdu == .readByGroupTypeResponse(expected))
        #expect(pdu.encode() == bytes)
    }

    @Test func readByTypeRequestWith128BitType() throws {
        let uuid = try #require(UUID128(string: "6e400001-b5a3-f393-e0a9-e50e24dcca9e"))
        let pdu = ATTPDU.readByTypeRequest(startHandle: 0x0001, endHandle: 0x00FF, attributeType: .uuid128(uuid))
        let bytes = pdu.encode()
        #expect(bytes == hex("08 01 00 FF 00 9E CA DC 24 0E E5 A9 E0 93 F3 A3 B5 01 00 40 6E"))
        #expect(try ATTPDU.parse(bytes) == pdu)
    }

    @Test func parsesFromArraySlice() throws {
        let frame = hex("07 00 04 00 1B 03 00 16 48")
        #expect(try ATTPDU.parse(frame[4...]) == .handleValueNotification(handle: 3, value: [0x16, 0x48]))
    }

    @Test func attributeHandleIsReadWithoutFullDecode() {
        #expect(ATTPDU.attributeHandle(in: hex("1B 2A 01 FF")) == 0x012A)
        #expect(ATTPDU.attributeHandle(in: hex("01 12 2A 00 0F")) == 0x002A)
        #expect(ATTPDU.attributeHandle(in: hex("1B 2A")) == nil)
        #expect(ATTPDU.attributeHandle(in: hex("03 17 00")) == nil)
    }
}

@Suite struct ATTPDUMalformedTests {
    @Test func emptyInput() {
        #expect(throws: ATTPDUError.empty) { try ATTPDU.parse([UInt8]()) }
    }

    @Test func fixedSizePDUsRejectShortAndLongInput() {
        #expect(throws: ATTPDUError.wrongLength(opcode: .exchangeMTURequest, expected: 3, actual: 2)) {
            try ATTPDU.parse(hex("02 F7"))
        }
        #expect(throws: ATTPDUError.wrongLength(opcode: .errorResponse, expected: 5, actual: 6)) {
            try ATTPDU.parse(hex("01 12 2A 00 0F 00"))
        }
        #expect(throws: ATTPDUError.wrongLength(opcode: .writeResponse, expected: 1, actual: 2)) {
            try ATTPDU.parse(hex("13 00"))
        }
    }

    @Test func notificationWithoutFullHandleIsTooShort() {
        #expect(throws: ATTPDUError.tooShort(opcode: .handleValueNotification, minimum: 3, actual: 2)) {
            try ATTPDU.parse(hex("1B 03"))
        }
    }

    @Test func uuidOfThreeBytesIsRejected() {
        #expect(throws: ATTPDUError.invalidUUIDLength(opcode: .readByTypeRequest, offset: 5, length: 3)) {
            try ATTPDU.parse(hex("08 01 00 FF FF 03 28 00"))
        }
    }

    @Test func findInformationFormatThreeIsRejected() {
        #expect(throws: ATTPDUError.invalidFindInformationFormat(3)) {
            try ATTPDU.parse(hex("05 03 03 00 02 29"))
        }
    }

    @Test func listLengthFieldsAreChecked() {
        // length byte 1 < the 2 handle bytes an entry needs
        #expect(throws: ATTPDUError.invalidEntryLength(opcode: .readByTypeResponse, length: 1, minimum: 2)) {
            try ATTPDU.parse(hex("09 01 02 00"))
        }
        // 7-byte entries but 8 bytes of list
        #expect(throws: ATTPDUError.listLengthMismatch(opcode: .readByTypeResponse, entryLength: 7, listLength: 8)) {
            try ATTPDU.parse(hex("09 07 02 00 10 03 00 37 2A 05"))
        }
        #expect(throws: ATTPDUError.listLengthMismatch(opcode: .findInformationResponse, entryLength: 4, listLength: 3)) {
            try ATTPDU.parse(hex("05 01 03 00 02"))
        }
        #expect(throws: ATTPDUError.emptyList(opcode: .readByGroupTypeResponse)) {
            try ATTPDU.parse(hex("11 06"))
        }
    }

    @Test func responsesWithMixedEntryLengthsCannotBeBuilt() {
        #expect(throws: ATTPDUError.mixedEntryLengths(opcode: .readByTypeResponse, firstLength: 4, otherLength: 3, entryIndex: 1)) {
            try ATTReadByTypeResponse(entries: [ATTHandleValue(handle: 1, value: [1, 2]), ATTHandleValue(handle: 2, value: [1])])
        }
        #expect(throws: ATTPDUError.entryTooLong(opcode: .readByTypeResponse, length: 256)) {
            try ATTReadByTypeResponse(entries: [ATTHandleValue(handle: 1, value: Array(repeating: 0, count: 254))])
        }
    }

    @Test func errorMessagesNameOffsetAndRemedy() {
        let message = ATTPDUError.tooShort(opcode: .handleValueNotification, minimum: 3, actual: 2).description
        #expect(message.contains("Handle Value Notification (0x1B)"))
        #expect(message.contains("offset 2"))
        #expect(message.contains("check"))
    }
}

@Suite struct ATTCodeTableTests {
    @Test func errorCodesCarryNamesAndRemedies() {
        #expect(ATTErrorCode.insufficientEncryption.rawValue == 0x0F)
        #expect(ATTErrorCode.insufficientEncryption.needsSecurity)
        #expect(ATTErrorCode.invalidHandle.description == "Invalid Handle (0x01)")
        #expect(ATTErrorCode.invalidHandle.remedy.contains("rediscover"))
        #expect(ATTErrorCode(rawValue: 0x85).isApplicationError)
        #expect(ATTErrorCode(rawValue: 0x85).name == "Application Error")
        #expect(ATTErrorCode(rawValue: 0x14).name == nil)
        #expect(ATTErrorCode.insufficientResources.isTransient)
    }

    @Test func opcodeBits() {
        #expect(ATTOpcode.writeCommand.isCommand)
        #expect(!ATTOpcode.writeRequest.isCommand)
        #expect(ATTOpcode.signedWriteCommand.hasAuthenticationSignature)
        #expect(ATTOpcode(rawValue: 0x7F).name == nil)
    }

    @Test func uuidTextForms() throws {
        let u = try #require(UUID128(string: "0000180d-0000-1000-8000-00805f9b34fb"))
        #expect(u == BluetoothUUID.uuid16(0x180D).expanded128)
        #expect(UUID128(string: "0000180d-0000-1000-8000-00805f9b34f") == nil)
        #expect(UUID128(string: "0000180d-0000-1000-8000-00805f9b34fg") == nil)
        #expect(BluetoothUUID.uuid16(0x2A37).description == "0x2A37")
    }
}

@Suite struct ATTOpcodeRoleTests {
    @Test func requestsKnowTheirResponse() {
        #expect(ATTOpcode.exchangeMTURequest.kind == .request)
        #expect(ATTOpcode.exchangeMTURequest.answerOpcode == .exchangeMTUResponse)
        #expect(ATTOpcode.readByGroupTypeRequest.answerOpcode == .readByGroupTypeResponse)
        #expect(ATTOpcode.writeRequest.answerOpcode == .writeResponse)
        #expect(ATTOpcode.handleValueIndication.answerOpcode == .handleValueConfirmation)
        #expect(ATTOpcode.handleValueNotification.kind == .notification)
        #expect(ATTOpcode.handleValueNotification.answerOpcode == nil)
        #expect(ATTOpcode.writeCommand.kind == .command)
        #expect(ATTOpcode.errorResponse.kind == .response)
        #expect(ATTOpcode(rawValue: 0x14).kind == nil)
    }
}
