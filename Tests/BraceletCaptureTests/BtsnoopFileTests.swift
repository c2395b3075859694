import Testing
import BraceletCapture
import Foundation

@Suite struct BtsnoopTimeTests {
    @Test func year2000InBtsnoopTimeIsUnix946684800() {
        // The constant from the format description: 0x00E03AB44A676000 is 2000-01-01T00:00:00Z.
        #expect(BtsnoopTime.unixMicros(fromBtsnoop: 0x00E0_3AB4_4A67_6000) == 946_684_800_000_000)
        #expect(BtsnoopTime.btsnoop(fromUnixMicros: 0) == 0x00DC_DDB3_0F2F_8000)
    }

    @Test func absurdTimestampsWrapInsteadOfTrapping() {
        _ = BtsnoopTime.unixMicros(fromBtsnoop: Int64.min)
        _ = BtsnoopTime.btsnoop(fromUnixMicros: Int64.max)
    }
}

@Suite struct BtsnoopWriterLayoutTests {
    @Test func h4CommandRecordHasExactBytes() {
        var w = BtsnoopWriter(datalink: .hciUART)
        // HCI Reset command (opcode 0x0C03, no parameters), sent.
        w.append(.command, direction: .sent, payload: [0x03, 0x0C, 0x00], unixMicros: t0)
        let expected = hex("62 74 73 6E 6F 6F 70 00  00 00 00 01  00 00 03 EA")
            + hex("00 00 00 04  00 00 00 04  00 00 00 02  00 00 00 00  00 E3 3E 71 19 E5 40 00")
            + hex("01 03 0C 00")
        #expect(w.bytes == expected)
        #expect(w.recordCount == 1)
        #expect(w.totalBytes == 44)
    }

    @Test func monitorRecordsCarryOpcodeAndAdapterIndexInFlags() throws {
        var w = BtsnoopWriter(datalink: .linuxMonitor)
        w.append(.acl, direction: .received, payload: [0x40, 0x20, 0x00, 0x00], unixMicros: t0, adapterIndex: 1)
        w.append(.event, direction: .received, payload: [0x13, 0x00], unixMicros: t0 + 1)
        let reader = try BtsnoopReader(bytes: w.bytes)
        #expect(reader.datalink == .linuxMonitor)
        let records = Array(reader)
        #expect(records.map(\.flags) == [0x0001_0005, 0x0000_0003])
        #expect(records.map(\.unixMicros) == [t0, t0 + 1])
        #expect(Array(records[0].packet) == [0x40, 0x20, 0x00, 0x00])  // no H4 type byte in 2001
    }

    @Test func drainHandsOutChunksThatConcatenateToTheFile() throws {
        var w = BtsnoopWriter(datalink: .hciUART)
        w.append(.event, direction: .received, payload: [0x13, 0x00], unixMicros: t0)
        var file = w.drain()
        w.append(.event, direction: .received, payload: [0x13, 0x00], unixMicros: t0 + 5)
        file += w.drain()
        #expect(w.bytes.isEmpty)
        #expect(file.count == 16 + 2 * (24 + 3))
        #expect(Array(try BtsnoopReader(bytes: file)).map(\.unixMicros) == [t0, t0 + 5])
    }
}

@Suite struct BtsnoopReaderErrorTests {
    func twoRecordFile() -> [UInt8] {
        var w = BtsnoopWriter(datalink: .hciUART)
        w.append(.command, direction: .sent, payload: [0x03, 0x0C, 0x00], unixMicros: t0)       // 4 bytes, offset 16
        w.append(.event, direction: .received, payload: [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00], unixMicros: t0 + 10)  // 7 bytes, offset 44
        return w.bytes  // 16 + 28 + 31 = 75 bytes
    }

    @Test func readsRecordsWithOffsetsFlagsAndTimes() throws {
        let file = twoRecordFile()
        #expect(file.count == 75)
        let records = Array(try BtsnoopReader(bytes: file))
        #expect(records.map(\.offset) == [16, 44])
        #expect(records.map(\.index) == [0, 1])
        #expect(records.map(\.flags) == [2, 3])
        #expect(records.map(\.originalLength) == [4, 7])
        #expect(records[1].unixMicros == t0 + 10)
    }

    @Test func fileShorterThanHeader() {
        #expect(throws: BtsnoopError.fileTooShort(size: 5)) { try BtsnoopReader(bytes: Array("btsno".utf8)) }
    }

    @Test func pcapFileIsNotBtsnoop() {
        let pcap = hex("D4 C3 B2 A1 02 00 04 00 00 00 00 00 00 00 00 00 FF FF 00 00")
        #expect(throws: BtsnoopError.notBtsnoop(magic: Array(pcap[0..<8]))) { try BtsnoopReader(bytes: pcap) }
        let message = BtsnoopError.notBtsnoop(magic: Array(pcap[0..<8])).description
        #expect(message.contains("D4 C3 B2 A1"))
        #expect(message.contains("editcap"))
    }

    @Test func versionTwoIsUnsupported() {
        var file = twoRecordFile()
        file[11] = 2
        #expect(throws: BtsnoopError.unsupportedVersion(2)) { try BtsnoopReader(bytes: file) }
    }

    @Test func datalink1003IsUnsupported() {
        var file = twoRecordFile()
        file[15] = 0xEB  // 0x03EB = 1003
        #expect(throws: BtsnoopError.unsupportedDatalink(1003)) { try BtsnoopReader(bytes: file) }
    }

    @Test func truncatedFinalRecordIsReportedAfterTheGoodOnes() throws {
        let file = Array(twoRecordFile().dropLast(3))  // record 1 at offset 44 keeps 4 of its 7 packet bytes
        var it = try BtsnoopReader(bytes: file).makeIterator()
        let first = try it.nextRecord()
        #expect(first?.offset == 16)
        #expect(throws: BtsnoopError.truncatedRecord(recordIndex: 1, offset: 44, includedLength: 7, available: 4)) {
            try it.nextRecord()
        }
        #expect(try it.nextRecord() == nil)  // no resynchronisation after a fault
        #expect(it.fault == .truncatedRecord(recordIndex: 1, offset: 44, includedLength: 7, available: 4))
        let message = BtsnoopError.truncatedRecord(recordIndex: 1, offset: 44, includedLength: 7, available: 4).description
        #expect(message.contains("byte offset 44"))
        #expect(message.contains("Copy the file again"))
    }

    @Test func truncatedRecordHeader() throws {
        let file = Array(twoRecordFile().prefix(44 + 10))
        var it = try BtsnoopReader(bytes: file).makeIterator()
        var count = 0
        while it.next() != nil { count += 1 }
        #expect(count == 1)
        #expect(it.fault == .truncatedRecordHeader(recordIndex: 1, offset: 44, available: 10))
    }

    @Test func recordLengthLargerThanAnyPacket() throws {
        var file = twoRecordFile()
        // included length of record 1 (offset 44 + 4) := 0x01000000
        file[48] = 0x01; file[44] = 0x01
        var it = try BtsnoopReader(bytes: file).makeIterator()
        while it.next() != nil {}
        #expect(it.fault == .implausibleRecordLength(recordIndex: 1, offset: 44, includedLength: 0x0100_0007))
    }

    @Test func includedLengthAboveOriginalLength() throws {
        var file = twoRecordFile()
        file[19] = 3  // record 0 original length 4 -> 3, included stays 4
        var it = try BtsnoopReader(bytes: file).makeIterator()
        #expect(it.next() == nil)
        #expect(it.fault == .includedLengthExceedsOriginal(recordIndex: 0, offset: 16, includedLength: 4, originalLength: 3))
    }

    @Test func fileRoundTripThroughDisk() throws {
        let path = NSTemporaryDirectory() + "bracelet-capture-test-\(UInt32.random(in: 0...UInt32.max)).btsnoop"
        try CaptureFile.write(twoRecordFile(), to: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let reader = try BtsnoopReader(contentsOfFile: path)
        #expect(reader.fileSize == twoRecordFile().count)
        let fromDisk = reader.map { Array($0.packet) }
        let fromMemory = try BtsnoopReader(bytes: twoRecordFile()).map { Array($0.packet) }
        #expect(fromDisk.count == 2 && fromDisk == fromMemory)
        #expect(throws: BtsnoopError.self) { try BtsnoopReader(contentsOfFile: path + ".missing") }
    }
}
