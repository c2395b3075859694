import Testing
import BraceletCapture
import BraceletTransport

/// Layout of the 1002 files below (maxACLPayload 27), computed by hand:
/// header 16 bytes; record 0 LE Connection Complete (24 + 22 bytes) at offset 16;
/// notification A = records 1-7 at 62, 118, 174, 230, 286, 342 (24 + 32 bytes each) and 398 (24 + 18);
/// notification B starts with record 8 at offset 440.
private func damagedSession(_ damage: ACLFragmentDamage?, dropLinkAfterB: Bool = false, writeC: Bool = true) -> [UInt8] {
    var w = ATTCaptureWriter(datalink: .hciUART)
    w.connect(unixMicros: t0)
    w.append(.handleValueNotification(handle: 0x000E, value: streamValue(seed: 0)), direction: .received, unixMicros: t0 + 1_000)
    w.append(.handleValueNotification(handle: 0x000E, value: streamValue(seed: 1)), direction: .received, unixMicros: t0 + 2_000,
             damage: damage)
    if dropLinkAfterB {
        w.disconnect(unixMicros: t0 + 2_500)
        w.connect(unixMicros: t0 + 2_800)
    }
    if writeC {
        w.append(.handleValueNotification(handle: 0x000E, value: streamValue(seed: 2)), direction: .received, unixMicros: t0 + 3_000)
    }
    return w.bytes
}

private func values(_ r: ReadBack) throws -> [UInt8] {
    try r.att.map { event -> UInt8 in
        guard case .handleValueNotification(_, let value) = try event.decode() else { return 0xFF }
        return value[0]  // the seed
    }
}

private func at(_ index: Int, _ offset: Int) -> CapturePosition { CapturePosition(recordIndex: index, byteOffset: offset) }

@Suite struct CaptureFaultTests {
    @Test func undamagedSessionHasNoFault() throws {
        let r = try readBack(damagedSession(nil))
        #expect(r.faults.isEmpty)
        #expect(try values(r) == [0, 1, 2])
    }

    @Test func missingContinuationFragmentIsNamedWhenTheNextFrameStarts() throws {
        // B loses fragment 2: records 8-13 hold fragments 0,1,3,4,5,6 (5 * 56 + 42 bytes) -> C starts at record 14, offset 762.
        let r = try readBack(damagedSession(.dropFragment(2)))
        #expect(r.order == ["up", "att", "fault", "att"])
        #expect(try values(r) == [0, 2])
        #expect(r.faults == [.aclFragmentMissing(at: at(14, 762), connectionHandle: 0x40, direction: .received,
                                                 frameStart: at(8, 440), expectedBytes: 175, receivedBytes: 148)])
        #expect(r.faults[0].position == at(14, 762))
        let message = r.faults[0].description
        #expect(message.contains("ACL fragment missing"))
        #expect(message.contains("byte offset 440"))
        #expect(message.contains("byte offset 762"))
        #expect(message.contains("re-requested"))
        #expect(r.statistics.faults == 1)
        #expect(r.statistics.attPDUs == 2)
    }

    @Test func lostStartFragmentMakesEveryContinuationAFault() throws {
        // B without fragment 0: records 8-13 are continuations at 440, 496, 552, 608, 664, 720.
        let r = try readBack(damagedSession(.dropFragment(0)))
        #expect(try values(r) == [0, 2])
        #expect(r.faults == [440, 496, 552, 608, 664, 720].enumerated().map { i, offset in
            .continuationWithoutStart(at: at(8 + i, offset), connectionHandle: 0x40, direction: .received)
        })
    }

    @Test func duplicatedFragmentOverrunsTheL2CAPLength() throws {
        // B fragments 0,1,2,3,3,4,5,6 = records 8-15; after record 14 (offset 776) the frame holds
        // 7 * 27 = 189 bytes of a declared 175; record 15 (offset 832) then has nothing to continue.
        let r = try readBack(damagedSession(.duplicateFragment(3)))
        #expect(try values(r) == [0, 2])
        #expect(r.faults == [
            .l2capLengthMismatch(at: at(14, 776), connectionHandle: 0x40, direction: .received,
                                 frameStart: at(8, 440), expectedBytes: 175, receivedBytes: 189),
            .continuationWithoutStart(at: at(15, 832), connectionHandle: 0x40, direction: .received),
        ])
    }

    @Test func linkDropMidFrameIsReportedBeforeTheDisconnection() throws {
        // B loses its last fragment: records 8-13 (6 * 56 bytes), Disconnection Complete is record 14 at 776.
        let r = try readBack(damagedSession(.dropFragment(6), dropLinkAfterB: true))
        #expect(r.order == ["up", "att", "fault", "down", "up", "att"])
        #expect(r.faults == [.incompleteFrame(at: at(14, 776), connectionHandle: 0x40, direction: .received,
                                              frameStart: at(8, 440), expectedBytes: 175, receivedBytes: 162)])
        #expect(r.att.map(\.connectionHandle) == [0x40, 0x41])
        #expect(try values(r) == [0, 2])
    }

    @Test func frameIncompleteAtTheEndOfTheCapture() throws {
        let r = try readBack(damagedSession(.dropFragment(6), writeC: false))
        #expect(r.faults == [.incompleteFrame(at: nil, connectionHandle: 0x40, direction: .received,
                                              frameStart: at(8, 440), expectedBytes: 175, receivedBytes: 162)])
        #expect(r.faults[0].description.contains("the capture ended"))
    }

    @Test func l2capLengthShorterThanTheData() throws {
        var w = ATTCaptureWriter(datalink: .hciUART)
        // record 1 at offset 62: write request of 5 bytes declared as 3 -> frame 7 bytes, 9 received
        w.append(.writeRequest(handle: 0x0010, value: [0x01, 0x00]), direction: .sent, unixMicros: t0, damage: .l2capLengthOffBy(-2))
        w.append(.writeResponse, direction: .received, unixMicros: t0 + 1)
        let r = try readBack(w.bytes)
        #expect(r.faults == [.l2capLengthMismatch(at: at(1, 62), connectionHandle: 0x40, direction: .sent,
                                                  frameStart: at(1, 62), expectedBytes: 7, receivedBytes: 9)])
        #expect(r.att.map { Array($0.pdu) } == [[0x13]])
    }

    @Test func l2capLengthLongerThanTheDataLooksLikeAMissingFragment() throws {
        var w = ATTCaptureWriter(datalink: .hciUART)
        w.append(.writeRequest(handle: 0x0010, value: [0x01, 0x00]), direction: .sent, unixMicros: t0, damage: .l2capLengthOffBy(5))
        // record 1 at 62 (24 + 14 bytes) -> record 2 at 100
        w.append(.writeRequest(handle: 0x0010, value: [0x02, 0x00]), direction: .sent, unixMicros: t0 + 1)
        let r = try readBack(w.bytes)
        #expect(r.faults == [.aclFragmentMissing(at: at(2, 100), connectionHandle: 0x40, direction: .sent,
                                                 frameStart: at(1, 62), expectedBytes: 14, receivedBytes: 9)])
        #expect(r.att.map { Array($0.pdu) } == [hex("12 10 00 02 00")])
    }

    @Test func aclHeaderLengthDisagreeingWithTheRecord() throws {
        var w = ATTCaptureWriter(datalink: .hciUART)
        w.append(.writeRequest(handle: 0x0010, value: [0x01, 0x00]), direction: .sent, unixMicros: t0)
        w.append(.writeResponse, direction: .received, unixMicros: t0 + 1)
        var file = w.bytes
        // record 1 at 62: H4 type at 86, handle 87-88, ACL length 89-90 (= 9)
        #expect(file[89] == 9)
        file[89] = 10
        let r = try readBack(file)
        #expect(r.faults == [.aclLengthMismatch(at: at(1, 62), declared: 10, actual: 9)])
        #expect(r.att.count == 1)
    }

    @Test func unknownH4PacketType() throws {
        var w = ATTCaptureWriter(datalink: .hciUART)
        w.append(.writeRequest(handle: 0x0010, value: [0x01, 0x00]), direction: .sent, unixMicros: t0)
        w.append(.writeResponse, direction: .received, unixMicros: t0 + 1)
        var file = w.bytes
        file[86] = 0x07
        let r = try readBack(file)
        #expect(r.faults == [.unknownPacketType(0x07, at: at(1, 62))])
        #expect(r.att.count == 1)
    }

    @Test func truncatedFileDeliversEverythingBeforeTheCut() throws {
        // Without C, B's last fragment is record 14 at offset 440 + 6 * 56 = 776 with 18 packet bytes; cut 5 of them.
        let file = Array(damagedSession(nil, writeC: false).dropLast(5))
        let r = try readBack(file)
        #expect(r.order == ["up", "att", "fault", "fault"])
        #expect(try values(r) == [0])
        #expect(r.faults == [
            .file(.truncatedRecord(recordIndex: 14, offset: 776, includedLength: 18, available: 13)),
            .incompleteFrame(at: nil, connectionHandle: 0x40, direction: .received, frameStart: at(8, 440),
                             expectedBytes: 175, receivedBytes: 162),
        ])
        #expect(r.faults[0].position == at(14, 776))
        #expect(r.statistics.records == 14)
    }

    @Test func emptyATTFrame() throws {
        var w = ATTCaptureWriter(datalink: .hciUART)
        w.appendATT([UInt8](), direction: .received, unixMicros: t0)
        let r = try readBack(w.bytes)
        #expect(r.faults == [.emptyATTPDU(at: at(1, 62), connectionHandle: 0x40, direction: .received)])
    }

    @Test func headerErrorsSurfaceFromTheReaderInit() {
        #expect(throws: BtsnoopError.notBtsnoop(magic: Array("notsnoop".utf8))) {
            try ATTCaptureReader(bytes: Array("notsnoop".utf8) + [0, 0, 0, 1, 0, 0, 3, 0xEA])
        }
    }
}
