import Testing
import BraceletCapture
import BraceletTransport

@Suite struct HCIClassificationTests {
    @Test func enhancedConnectionCompleteAndCommandsAreRecognised() throws {
        var w = BtsnoopWriter(datalink: .hciUART)
        // LE Create Connection command (0x200D) with 25 zero parameter bytes: counted, not decoded.
        w.append(.command, direction: .sent, payload: [0x0D, 0x20, 25] + Array(repeating: 0, count: 25), unixMicros: t0)
        // LE Enhanced Connection Complete: subevent 0x0A, status 0, handle field 0xF001 (top 4 bits are not part of the handle -> 0x001),
        // role 0, random address type, address 01:02:03:04:05:C6 little-endian, 2 RPAs, interval, latency, timeout, accuracy.
        let params = hex("0A 00 01 F0 00 01 C6 05 04 03 02 01") + Array(repeating: 0, count: 12) + hex("18 00 00 00 F4 01 00")
        w.append(.event, direction: .received, payload: [0x3E, UInt8(params.count)] + params, unixMicros: t0 + 1)
        let r = try readBack(w.bytes)
        #expect(r.links == [LinkEvent(timestampMicros: t0 + 1, connectionHandle: 0x001, adapterIndex: 0,
                                      position: CapturePosition(recordIndex: 1, byteOffset: 16 + 24 + 29),
                                      peerAddress: "01:02:03:04:05:C6", reason: nil)])
        #expect(r.statistics.commandPackets == 1)
        #expect(r.statistics.eventPackets == 1)
        #expect(r.statistics.connections == 1)
    }

    @Test func failedConnectionAttemptIsNotALink() throws {
        var w = BtsnoopWriter(datalink: .hciUART)
        var event = HCIEventBuilder.leConnectionComplete(handle: 0x40, peerAddress: [1, 2, 3, 4, 5, 6])
        event[3] = 0x3E  // status: connection failed to be established
        w.append(.event, direction: .received, payload: event, unixMicros: t0)
        let r = try readBack(w.bytes)
        #expect(r.links.isEmpty)
        #expect(r.statistics.eventPackets == 1)
    }

    @Test func eventWithWrongParameterLength() throws {
        var w = BtsnoopWriter(datalink: .hciUART)
        w.append(.event, direction: .received, payload: hex("05 04 00 40 00"), unixMicros: t0)  // declares 4, has 3
        let r = try readBack(w.bytes)
        #expect(r.faults == [.eventLengthMismatch(at: CapturePosition(recordIndex: 0, byteOffset: 16), declared: 4, actual: 3)])
    }

    @Test func monitorRecordsOtherThanHCIAreCountedAndSkipped() throws {
        var w = BtsnoopWriter(datalink: .linuxMonitor)
        w.appendMonitorRecord(opcode: MonitorOpcode.systemNote, payload: Array("Bluetooth monitor ver 5.66".utf8), unixMicros: t0)
        w.append(.sco, direction: .received, payload: hex("40 00 03 01 02 03"), unixMicros: t0 + 1)
        w.append(.acl, direction: .received, payload: hex("40 20 07 00 03 00 04 00 1B 03 00"), unixMicros: t0 + 2, adapterIndex: 2)
        let r = try readBack(w.bytes)
        #expect(r.statistics.ignoredMonitorRecords == 1)
        #expect(r.statistics.otherDataPackets == 1)
        #expect(r.att.map(\.adapterIndex) == [2])
        #expect(r.att.map { Array($0.pdu) } == [hex("1B 03 00")])
    }

    @Test func monitorRecordCannotBeWrittenToAnH4File() {
        var w = BtsnoopWriter(datalink: .hciUART)
        let written = w.appendMonitorRecord(opcode: MonitorOpcode.systemNote, payload: [0x41], unixMicros: t0)
        #expect(!written)
        #expect(w.recordCount == 0)
    }

    @Test func unencapsulatedFlagsSayCommandEventAndDirection() throws {
        var w = BtsnoopWriter(datalink: .hciUnencapsulated)
        w.append(.command, direction: .sent, payload: [0x03, 0x0C, 0x00], unixMicros: t0)
        w.append(.event, direction: .received, payload: [0x13, 0x00], unixMicros: t0)
        w.append(.acl, direction: .sent, payload: [0x40, 0x00, 0x00, 0x00], unixMicros: t0)
        w.append(.acl, direction: .received, payload: [0x40, 0x20, 0x00, 0x00], unixMicros: t0)
        #expect(Array(try BtsnoopReader(bytes: w.bytes)).map(\.flags) == [2, 3, 0, 1])
    }
}

/// Damaged input never crashes the reader: every single-byte corruption of a real session is read to
/// the end, and what the reader counts stays consistent with the file.
@Suite struct CorruptionRobustnessTests {
    @Test(arguments: [BtsnoopDatalink.hciUART, .linuxMonitor])
    func everyCorruptedByteIsSurvived(_ datalink: BtsnoopDatalink) throws {
        let original = writeSession(datalink)
        var sawFault = false
        for offset in stride(from: 16, to: original.count, by: 3) {
            for value: UInt8 in [0x00, 0xFF, original[offset] ^ 0x10] {
                var file = original
                file[offset] = value
                let reader = try ATTCaptureReader(bytes: file)
                var it = reader.makeIterator()
                var events = 0
                while let e = it.next() {
                    events += 1
                    if case .fault = e { sawFault = true }
                    if case .att(let a) = e { _ = try? a.decode() }
                }
                #expect(it.statistics.bytesRead <= file.count)
                #expect(it.statistics.attPDUs <= it.statistics.aclPackets)  // a PDU needs at least one ACL packet
                #expect(it.statistics.records <= (file.count - 16) / 24)
                #expect(events >= 1)
            }
        }
        #expect(sawFault)
    }
}
