import Testing
import BraceletCapture
import BraceletTransport

/// A short session: MTU exchange, enabling notifications, two 168-byte data notifications, a link
/// drop, a reconnection and a Heart Rate notification.
func writeSession(_ datalink: BtsnoopDatalink) -> [UInt8] {
    var w = ATTCaptureWriter(datalink: datalink)
    w.connect(unixMicros: t0)
    w.append(.exchangeMTURequest(clientRxMTU: 247), direction: .sent, unixMicros: t0 + 1_000)
    w.append(.exchangeMTUResponse(serverRxMTU: 247), direction: .received, unixMicros: t0 + 2_000)
    w.append(.writeRequest(handle: 0x0010, value: [0x01, 0x00]), direction: .sent, unixMicros: t0 + 3_000)
    w.append(.writeResponse, direction: .received, unixMicros: t0 + 4_000)
    w.append(.handleValueNotification(handle: 0x000E, value: streamValue(seed: 0)), direction: .received, unixMicros: t0 + 5_000)
    w.append(.handleValueNotification(handle: 0x000E, value: streamValue(seed: 1)), direction: .received, unixMicros: t0 + 6_000)
    w.disconnect(unixMicros: t0 + 7_000)
    w.connect(unixMicros: t0 + 8_000)
    // Heart Rate Measurement: flags 0x16 (contact detected+supported, RR present), 72 bpm, RR 1024/1024 s.
    w.append(.handleValueNotification(handle: 0x0003, value: [0x16, 0x48, 0x00, 0x04]), direction: .received, unixMicros: t0 + 9_000)
    return w.bytes
}

@Suite struct ATTCaptureRoundTripTests {
    @Test(arguments: [BtsnoopDatalink.hciUART, .linuxMonitor, .hciUnencapsulated])
    func sessionReadsBackExactly(_ datalink: BtsnoopDatalink) throws {
        let r = try readBack(writeSession(datalink))
        #expect(r.faults.isEmpty)
        #expect(r.order == ["up", "att", "att", "att", "att", "att", "att", "down", "up", "att"])
        let expected: [ATTPDU] = [
            .exchangeMTURequest(clientRxMTU: 247), .exchangeMTUResponse(serverRxMTU: 247),
            .writeRequest(handle: 0x0010, value: [0x01, 0x00]), .writeResponse,
            .handleValueNotification(handle: 0x000E, value: streamValue(seed: 0)),
            .handleValueNotification(handle: 0x000E, value: streamValue(seed: 1)),
            .handleValueNotification(handle: 0x0003, value: [0x16, 0x48, 0x00, 0x04]),
        ]
        #expect(try r.att.map { try $0.decode() } == expected)
        #expect(r.att.map(\.direction) == [.sent, .received, .sent, .received, .received, .received, .received])
        #expect(r.att.map(\.connectionHandle) == [0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x41])
        #expect(r.att.map(\.timestampMicros) == [1, 2, 3, 4, 5, 6, 9].map { t0 + $0 * 1_000 })
        #expect(r.links.map(\.connectionHandle) == [0x40, 0x40, 0x41])
        #expect(r.links.map(\.peerAddress) == ["C2:87:00:00:00:01", nil, "C2:87:00:00:00:01"])
        #expect(r.links.map(\.reason) == [nil, 0x08, nil])

        let s = r.statistics
        // ACL packets: 1 + 1 + 1 + 1 (short PDUs) + 7 + 7 (175-byte frames over 27-byte payloads) + 1.
        #expect(s.aclPackets == 19)
        #expect(s.eventPackets == 3)
        #expect(s.commandPackets == 0)
        #expect(s.ignoredMonitorRecords == (datalink == .linuxMonitor ? 2 : 0))  // New Index + Open Index
        #expect(s.records == 22 + s.ignoredMonitorRecords)
        #expect(s.l2capFrames == 7)
        #expect(s.attPDUs == 7)
        #expect(s.connections == 2)
        #expect(s.disconnections == 1)
        #expect(s.connectionHandles == [0x40, 0x41])
        #expect(s.attributeHandles == [0x03, 0x0E, 0x10])
        #expect(s.faults == 0)
        #expect(s.bytesRead == writeSession(datalink).count)
    }

    @Test func readAllCopiesEventsOut() throws {
        let all = try ATTCaptureReader(bytes: writeSession(.hciUART)).readAll()
        #expect(all.events.count == 7)
        #expect(all.links.count == 3)
        #expect(all.faults.isEmpty)
        #expect(all.events.last?.opcode == .handleValueNotification)
    }

    @Test func signallingAndSMPFramesAreCountedNotYielded() throws {
        var w = ATTCaptureWriter()
        w.appendL2CAP(channel: 0x0006, payload: [0x01, 0x03, 0x00, 0x01, 0x10, 0x07, 0x07], direction: .sent, unixMicros: t0)
        w.append(.readRequest(handle: 0x0021), direction: .sent, unixMicros: t0 + 1)
        let r = try readBack(w.bytes)
        #expect(r.att.count == 1)
        #expect(r.statistics.l2capFrames == 2)
        #expect(r.statistics.nonATTFrames == 1)
        #expect(r.statistics.attributeHandles == [0x21])
    }

    @Test func completedPacketsEventsFollowSentACLPackets() throws {
        var w = ATTCaptureWriter(reportsCompletedPackets: true)
        w.append(.writeCommand(handle: 0x0012, value: Array(repeating: 0xAA, count: 40)), direction: .sent, unixMicros: t0)
        // 43-byte PDU + 4 = 47 bytes -> 2 fragments (27 + 20), each followed by a completed-packets event.
        let r = try readBack(w.bytes)
        #expect(r.statistics.aclPackets == 2)
        #expect(r.statistics.eventPackets == 1 + 2)
        #expect(r.att.count == 1)
    }
}

@Suite struct FragmentationTests {
    @Test func notificationOf168BytesBecomesSevenFragmentsOf27Bytes() throws {
        var w = ATTCaptureWriter(datalink: .hciUART, maxACLPayload: 27)
        let value = streamValue(seed: 7)
        w.append(.handleValueNotification(handle: 0x000E, value: value), direction: .received, unixMicros: t0)
        let records = Array(try BtsnoopReader(bytes: w.bytes))
        // record 0: LE Connection Complete; then ATT 171 bytes + L2CAP 4 = 175 = 6 * 27 + 13.
        #expect(records.count == 8)
        let acl = records.dropFirst()
        #expect(acl.map(\.packet.count) == [32, 32, 32, 32, 32, 32, 18])  // H4 type + ACL header 4 + data
        #expect(acl.map(\.flags) == Array(repeating: 1, count: 7))        // received, data
        // Handle 0x040 with PB 0b10 (first, controller -> host), then 0b01 (continuation).
        #expect(Array(acl.first!.packet.prefix(12)) == hex("02 40 20 1B 00 AB 00 04 00 1B 0E 00"))
        #expect(acl.dropFirst().allSatisfy { Array($0.packet.prefix(3)) == [0x02, 0x40, 0x10] })
        #expect(Array(acl.last!.packet.prefix(5)) == hex("02 40 10 0D 00"))

        let r = try readBack(w.bytes)
        #expect(r.faults.isEmpty)
        #expect(r.att.count == 1)
        #expect(Array(r.att[0].pdu) == [0x1B, 0x0E, 0x00] + value)
    }

    @Test func sentStartFragmentsUseNonFlushableBoundaryFlag() throws {
        var w = ATTCaptureWriter(datalink: .hciUART, maxACLPayload: 27)
        w.append(.writeCommand(handle: 0x0012, value: Array(repeating: 0x55, count: 30)), direction: .sent, unixMicros: t0)
        let records = Array(try BtsnoopReader(bytes: w.bytes)).dropFirst()
        // 33 + 4 = 37 bytes -> 27 + 10
        #expect(records.map { Array($0.packet.prefix(5)) } == [hex("02 40 00 1B 00"), hex("02 40 10 0A 00")])
        #expect(try readBack(w.bytes).att.map { try $0.decode() }
                == [.writeCommand(handle: 0x0012, value: Array(repeating: 0x55, count: 30))])
    }

    @Test func largeACLPayloadKeepsFrameWhole() throws {
        var w = ATTCaptureWriter(datalink: .linuxMonitor, maxACLPayload: 251)
        w.append(.handleValueNotification(handle: 0x000E, value: streamValue(seed: 0)), direction: .received, unixMicros: t0)
        let r = try readBack(w.bytes)
        #expect(r.statistics.aclPackets == 1)
        #expect(r.att.count == 1)
    }

    @Test func interleavedDirectionsAndHandlesReassembleIndependently() throws {
        // Hand-built 1002 stream: handle 0x40 RX frame split in 2, with a TX frame in between.
        var w = BtsnoopWriter(datalink: .hciUART)
        // RX start: L2CAP len 5, CID 4, ATT 1B 0E 00 | first value byte
        w.append(.acl, direction: .received, payload: hex("40 20 06 00  05 00 04 00 1B 0E"), unixMicros: t0)
        w.append(.acl, direction: .sent, payload: hex("40 00 07 00  03 00 04 00 0A 03 00"), unixMicros: t0 + 1)
        w.append(.acl, direction: .received, payload: hex("40 10 03 00  00 AA BB"), unixMicros: t0 + 2)
        let r = try readBack(w.bytes)
        #expect(r.faults.isEmpty)
        #expect(r.att.map { Array($0.pdu) } == [hex("0A 03 00"), hex("1B 0E 00 AA BB")])
        #expect(r.att.map(\.position.recordIndex) == [1, 2])
        #expect(r.att.map(\.timestampMicros) == [t0 + 1, t0 + 2])
    }

    @Test func l2capHeaderSplitAcrossFragmentsIsHandled() throws {
        var w = BtsnoopWriter(datalink: .hciUART)
        w.append(.acl, direction: .received, payload: hex("40 20 02 00  04 00"), unixMicros: t0)
        w.append(.acl, direction: .received, payload: hex("40 10 06 00  04 00 1B 01 00 7F"), unixMicros: t0 + 1)
        let r = try readBack(w.bytes)
        #expect(r.faults.isEmpty)
        #expect(r.att.map { Array($0.pdu) } == [hex("1B 01 00 7F")])
    }
}

@Suite struct ATTEventAccessTests {
    @Test func handleValueReadsNotificationsWithoutDecoding() throws {
        let r = try readBack(writeSession(.hciUART))
        let values = r.att.compactMap(\.handleValue)
        #expect(values.map(\.handle) == [0x000E, 0x000E, 0x0003])
        #expect(Array(values[0].value) == streamValue(seed: 0))
        #expect(Array(values[2].value) == [0x16, 0x48, 0x00, 0x04])
        #expect(r.att[0].handleValue == nil)  // MTU request
    }
}
