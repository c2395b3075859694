import BraceletCapture
import BraceletTransport
import Testing

@Suite("A recorded link notes its encryption")
struct EncryptionNoteTests {
    @Test func encryptionChangeFollowsTheConnectionAndReadsBackWithoutFaults() throws {
        var writer = ATTCaptureWriter(datalink: .hciUART, maxACLPayload: 251)
        writer.encryptionOn(unixMicros: 1_000)  // no link yet: nothing written
        writer.connect(unixMicros: 2_000)
        let handle = try #require(writer.connectionHandle)
        writer.encryptionOn(unixMicros: 3_000)
        writer.append(.exchangeMTURequest(clientRxMTU: 247), direction: .sent, unixMicros: 4_000)
        let bytes = writer.bytes
        // H4 event 0x04, Encryption Change 0x08, 4 parameters: status 0, handle, enabled 1.
        let event: [UInt8] = [0x04, 0x08, 0x04, 0x00, UInt8(handle & 0xFF), UInt8(handle >> 8), 0x01]
        let found = (0...(bytes.count - event.count)).filter { Array(bytes[$0..<($0 + event.count)]) == event }
        #expect(found.count == 1)
        let all = try ATTCaptureReader(bytes: bytes).readAll()
        #expect(all.faults.isEmpty)
        #expect(all.events.count == 1)
        #expect(all.links.count == 1)
    }
}
