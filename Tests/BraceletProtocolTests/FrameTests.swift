import Testing
@testable import BraceletProtocol

@Test func crcCheckValuesMatchTheirCatalogues() {
    let check = Array("123456789".utf8)
    #expect(CRC8.checksum(check) == 0xF4)
    #expect(CRC16.checksum(check) == 0x29B1)
    #expect(CRC32.checksum(check) == 0xCBF4_3926)
}

@Test func everyCommandRoundTrips() throws {
    let commands: [Command] = [
        .setTime(unixSeconds: 1_774_742_400, timeZoneOffsetMinutes: -330), .setPlan(.highResolution), .status,
        .fileSize(.beats), .readFile(.metrics, offset: 123_456, length: 10_000), .eraseFile(.logs, size: 77),
        .queueStatus(.beats),
    ]
    for command in commands {
        let frame = command.encode()
        #expect(frame.count == Command.frameLength(of: command.code))
        #expect(try Command(frame: frame) == command)
    }
}

@Test func commandWithFlippedBitFailsItsCRC() {
    var frame = Command.fileSize(.metrics).encode()
    frame[1] ^= 0x04
    #expect(throws: FrameError.crcMismatch(code: 0x10, expected: UInt32(CRC8.checksum(frame.dropLast())), found: UInt32(frame[2]))) {
        try Command(frame: frame)
    }
}

@Test func commandOfWrongLengthOrUnknownCodeIsRejected() {
    #expect(throws: FrameError.wrongLength(code: 0x02, expected: 3, actual: 2)) { try Command(frame: [0x02, 0x00]) }
    #expect(throws: FrameError.unknownCode(0x7A)) { try Command(frame: [0x7A, 0, 0]) }
    #expect(throws: FrameError.empty) { try Command(frame: []) }
    let badKind: [UInt8] = [0x10, 0x09, CRC8.checksum([0x10, 0x09])]
    #expect(throws: FrameError.invalidField(name: "file kind", value: 9)) { try Command(frame: badKind) }
}

@Test func everyResponseRoundTrips() throws {
    let responses: [Response] = [
        .timeSet, .planSet(.typical),
        .status(DeviceStatus(wearing: 3, mode: 1, batteryPercent: 100, isCharging: true, idleState: 4)),
        .fileSize(size: Response.maximumFileSize, storageUsedPercent: 100), .readAccepted(length: 10_000, packetCount: 64),
        .erased(size: 1, storageUsedPercent: 0), .error(command: 0x11, code: .offsetOutOfRange, detail: 0xBEEF),
        .queueStatus(files: 9, kibibytes: 0xFF_FFFF),
    ]
    for response in responses {
        let frame = response.encode()
        #expect(frame.count == 6)
        #expect(try Response(frame: frame) == response)
    }
}

@Test func responseWithUnknownErrorCodeIsRejectedNotGuessed() {
    var frame: [UInt8] = [0xEE, 0x11, 0x42, 0, 0]
    frame.append(CRC8.checksum(frame))
    #expect(throws: FrameError.invalidField(name: "error code", value: 0x42)) { try Response(frame: frame) }
}

@Test func deviceErrorsSayWhetherARetryHelps() {
    #expect(DeviceErrorCode.busy.isTransient)
    #expect(DeviceErrorCode.badCRC.isTransient)
    #expect(!DeviceErrorCode.eraseSizeMismatch.isTransient)
    #expect(DeviceErrorCode.eraseSizeMismatch.description.contains("erase only what was saved"))
}

@Test func dataPacketPayloadCapacityFollowsTheMTU() {
    #expect(DataPacket.payloadCapacity(attMTU: 23) == 10)
    #expect(DataPacket.payloadCapacity(attMTU: 171) == 158)
    #expect(DataPacket.payloadCapacity(attMTU: 247) == 158)
}

@Test func dataPacketWithCorruptPayloadIsDetected() throws {
    var bytes = DataPacket(sequence: 7, offset: 1106, isLast: false, payload: Array(repeating: 0x5A, count: 158)).encode()
    #expect(bytes.count == 168)
    #expect(try DataPacket(bytes: bytes).offset == 1106)
    bytes[20] ^= 0x01
    #expect(throws: FrameError.packetCRCMismatch(computed: CRC16.checksum(bytes.dropLast(2)), found: bytes.readLittleEndian(at: 166)!)) {
        try DataPacket(bytes: bytes)
    }
    #expect(throws: FrameError.packetLength(expected: 11, actual: 4)) { try DataPacket(bytes: [0, 0, 0, 0]) }
}

/// A packet with a matching CRC but a header no bracelet sends is corrupt, so that every packet the
/// client accepts is one it would send back byte for byte.
@Test func dataPacketWithReservedFlagsOrLongPayloadIsRejectedDespiteItsCRC() throws {
    // Sequence 0x0200, offset 0x4D435242, one payload byte 0x0B, flags 0x05 (bit 2 reserved), valid CRC.
    let flagged: [UInt8] = [0x00, 0x02, 0x42, 0x52, 0x43, 0x4D, 0x01, 0x05, 0x0B, 0x01, 0x00]
    #expect(CRC16.checksum(flagged.dropLast(2)) == 0x0001)
    #expect(throws: FrameError.packetField(name: "flags", value: 5)) { try DataPacket(bytes: flagged) }
    var cleared = flagged
    cleared[7] = 0x01
    cleared.replaceSubrange(9..., with: withUnsafeBytes(of: CRC16.checksum(cleared.prefix(9)).littleEndian, Array.init))
    #expect(try DataPacket(bytes: cleared) == DataPacket(sequence: 0x0200, offset: 0x4D43_5242, isLast: true, payload: [0x0B]))

    var long: [UInt8] = [0, 0, 0, 0, 0, 0, 159, 0] + Array(repeating: 0x5A, count: 159)
    long += withUnsafeBytes(of: CRC16.checksum(long).littleEndian, Array.init)
    #expect(throws: FrameError.packetField(name: "payload length", value: 159)) { try DataPacket(bytes: long) }
}

@Test func headerRejectsWrongMagicVersionModelAndRecordSize() throws {
    let good = FileHeader(kind: .metrics, model: .v2, serial: "BR200007", baseTime: 1_774_742_400,
                          timeZoneOffsetMinutes: 120, intervalSeconds: 60, recordCount: 3).encode()
    func parse(_ bytes: [UInt8]) throws -> FileHeader {
        try bytes.withUnsafeBytes { try FileHeader(bytes: $0) }
    }
    #expect(try parse(good).recordSize == 32)
    var bad = good; bad[0] = 0x58
    #expect(throws: FileFormatError.badMagic(found: [0x58, 0x52, 0x43, 0x4D])) { try parse(bad) }
    bad = good; bad[4] = 9
    #expect(throws: FileFormatError.unsupportedVersion(9)) { try parse(bad) }
    bad = good; bad[5] = 3
    #expect(throws: FileFormatError.unknownModel(3)) { try parse(bad) }
    bad = good; bad[6] = 24
    #expect(throws: FileFormatError.recordSizeMismatch(model: .v2, kind: .metrics, expected: 32, found: 24)) { try parse(bad) }
    bad = good; bad[22] = 0; bad[23] = 0
    #expect(throws: FileFormatError.intervalOutOfRange(0)) { try parse(bad) }
    #expect(throws: FileFormatError.truncated(offset: 10, needed: 32, what: "file header")) { try parse(Array(good[0..<10])) }
}

@Test func truncatedSealedFileKeepsItsCompleteRecords() throws {
    let header = FileHeader(kind: .metrics, model: .v1, serial: "BR1", baseTime: 0, timeZoneOffsetMinutes: 0,
                            intervalSeconds: 60, recordCount: 3)
    let file = SealedFile.seal(header: header, records: Array(repeating: 0xFF, count: 72))
    let cut = Array(file[0..<(32 + 24 * 2 + 5)])
    let sealed = try cut.withUnsafeBytes { try SealedFile(bytes: $0) }
    #expect(sealed.completeRecords == 2)
    #expect(sealed.recordBytes == 32..<80)
    #expect(sealed.faults == [.truncated(offset: 85, needed: 24, what: "record 2 of 3")])
    var corrupt = file
    corrupt[40] ^= 0xFF
    let checked = try corrupt.withUnsafeBytes { try SealedFile(bytes: $0) }
    #expect(checked.completeRecords == 3)
    if case .crcMismatch(let offset, _, _)? = checked.faults.first { #expect(offset == 104) } else { Issue.record("expected a CRC fault") }
}

@Test func advertisementRoundTripsAndNamesTheModel() throws {
    let ad = BraceletAdvertisement(pairingState: 1, serial: "BR200007", brandID: 0x0101, hardwareID: 0x0002,
                                   modelID: 2, localName: "BR-V2")
    let bytes = ad.encode()
    #expect(bytes.count <= 31)
    let parsed = try #require(BraceletAdvertisement(advertisingData: bytes))
    #expect(parsed == ad)
    #expect(parsed.model == .v2)
    var long = ad
    long.localName = "Bracelet V2 with a long name"
    #expect(long.encode().count == 31)
    #expect(BraceletAdvertisement(advertisingData: long.encode())?.localName == "Bracele")
    #expect(BraceletAdvertisement(advertisingData: [0x02, 0x01, 0x06, 0x03, 0x03, 0x0D, 0x18]) == nil)
}

@Test func heartRateMeasurementDecodesFlagsEnergyAndRR() throws {
    // flags 0x1E: UInt8 rate, contact supported + detected, energy present, RR present.
    let value: [UInt8] = [0x1E, 72, 0x2C, 0x01, 0x00, 0x04, 0xCD, 0x03]
    let m = try HeartRateMeasurement(value: value)
    #expect(m.bpm == 72)
    #expect(m.contactDetected == true)
    #expect(m.energyExpendedKJ == 300)
    #expect(m.rrIntervals1024 == [1024, 973])
    #expect(m.rrMilliseconds == [1000, 950])
    #expect(m.encode() == value)
    #expect(try HeartRateMeasurement(value: [0x01, 0x2C, 0x01]).bpm == 300)
    #expect(try HeartRateMeasurement(value: [0x00, 60]).contactDetected == nil)
    #expect(throws: FrameError.self) { try HeartRateMeasurement(value: [0x10, 60, 0x01]) }
}

@Test func uuidsPrintAndParseBothForms() {
    #expect(GATTNumbers.heartRateService.description == "0x180D")
    #expect(GATTNumbers.braceletService.description == "6B1E0001-5C3A-4F7E-9D2B-8A4C1F0E7D35")
    #expect(GATTNumbers.heartRateMeasurement.wireBytes == [0x37, 0x2A])
    #expect(BluetoothUUID(wireBytes: GATTNumbers.braceletService.wireBytes) == GATTNumbers.braceletService)
    #expect(GATTNumbers.model(fromModelNumber: "287-2B") == .v2)
    #expect(GATTNumbers.model(fromModelNumber: "HRM-Pro") == nil)
}

@Test func plansRespectTheModel() {
    #expect(MeasurementPlan.typicalMulticolor.isSupported(by: .v2))
    #expect(!MeasurementPlan.typicalMulticolor.isSupported(by: .v1))
    #expect(!MeasurementPlan(rawValue: 6).isSupported(by: .v2))
}
