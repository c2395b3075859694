import Foundation
import Testing
import BraceletDecoder
import BraceletProtocol
import BraceletSimulator
import BraceletTransport
@testable import BraceletCapture

/// The bundled captures, replayed and checked against the physiological model that generated them.
enum BundledCaptures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("captures")

    static func load(_ name: String) throws -> ReplayedCapture {
        try ReplayedCapture.load(bytes: CaptureFile.read(path: directory.appendingPathComponent(name).path))
    }
}

@Test func v1DayReplaysToTheModelsGroundTruth() throws {
    let replayed = try BundledCaptures.load("v1-day.btsnoop")
    #expect(!replayed.isIncomplete)
    #expect(replayed.metricsFiles.count == 1)
    let file = try #require(replayed.metricsFiles.first)
    #expect(file.header.model == .v1)
    #expect(file.header.serial == "V1DAY001")
    #expect(file.header.timeZoneOffsetMinutes == 120)
    let model = try PhysiologyScenario.v1Day.makeModel()
    let truth = model.slots(from: file.header.baseTime, to: file.header.baseTime + Int64(file.slots.count) * 60)
    #expect(file.slots.count >= 1430)
    #expect(file.slots == truth)
    #expect(file.outOfRange.allSatisfy { $0.isEmpty })
    // Beats cover the nights and match the model, gaps included.
    let beats = replayed.beatsFiles.flatMap(\.beats)
    #expect(beats.count > 20_000)
    #expect(beats.first?.rrMs == nil)
    #expect(!replayed.heartRates.isEmpty)
    #expect(replayed.heartRates.allSatisfy { (30...220).contains($0.measurement.bpm) })
}

@Test func faultyTransferRecoversEveryByteOfTheCleanOne() throws {
    let clean = try BundledCaptures.load("v1-day.btsnoop")
    let faulty = try BundledCaptures.load("v1-faulty-transfer.btsnoop")
    #expect(!faulty.isIncomplete)
    #expect(faulty.metricsFiles.map(\.slots) == clean.metricsFiles.map(\.slots))
    var lost = 0, repeated = 0, corrupt = 0, drops = 0
    for fault in faulty.transferFaults {
        switch fault {
        case .packetsLost: lost += 1
        case .repeatedPacket: repeated += 1
        case .corruptPacket: corrupt += 1
        case .linkDroppedDuringTransfer: drops += 1
        default: break
        }
    }
    // The capture generator lost packets 5 and 41, repeated 12, corrupted 20 and dropped the link.
    #expect(lost == 3)   // packets 5 and 41, and the one after the corrupt packet 20
    #expect(repeated == 1)
    #expect(corrupt == 1)
    #expect(drops == 1)
    #expect(clean.transferFaults.isEmpty)
}

@Test func threeDaySessionHoldsThreeNightlySyncs() throws {
    let replayed = try BundledCaptures.load("v2-three-days.btsnoop")
    #expect(replayed.metricsFiles.count == 3)
    #expect(replayed.statistics.connections == 3)
    let model = try PhysiologyScenario.v2ThreeDays.makeModel()
    for file in replayed.metricsFiles {
        #expect(file.header.model == .v2)
        #expect(file.header.timeZoneOffsetMinutes == -240)
        let truth = model.slots(from: file.header.baseTime, to: file.header.baseTime + Int64(file.slots.count) * 60)
        #expect(file.slots == truth)
    }
    // Files follow each other without a gap or an overlap.
    for (a, b) in zip(replayed.metricsFiles, replayed.metricsFiles.dropFirst()) {
        #expect(a.header.baseTime + Int64(a.slots.count) * 60 == b.header.baseTime)
    }
    #expect(replayed.metricsFiles.flatMap(\.slots).contains { $0.spo2 != nil && $0.coreTempC != nil && $0.edaMicrosiemens != nil })
}

@Test func daylightSavingSessionSealsAFileWhenTheOffsetChanges() throws {
    let replayed = try BundledCaptures.load("v2-daylight-saving.btsnoop")
    // Syncs on Saturday (+02:00), Sunday after the change (+01:00) and Monday: the Sunday set-time
    // carries the new offset, so the file recorded before it keeps +120 and the next one has +60.
    #expect(replayed.metricsFiles.map(\.header.timeZoneOffsetMinutes) == [120, 120, 60])
}

@Test func truncatedCaptureStillDeliversTheCompleteRecordsBeforeTheCut() throws {
    let full = try CaptureFile.read(path: BundledCaptures.directory.appendingPathComponent("v1-day.btsnoop").path)
    let clean = try ReplayedCapture.load(bytes: full)
    // Cut inside the metrics transfer (it follows discovery and two minutes of live heart rate).
    let cut = Array(full[0..<(full.count / 12)])
    let replayed = try ReplayedCapture.load(bytes: cut)
    #expect(replayed.isIncomplete)
    let partial = try #require(replayed.metricsFiles.first)
    #expect(!partial.slots.isEmpty)
    #expect(partial.slots.count < clean.metricsFiles[0].slots.count)
    #expect(partial.slots == Array(clean.metricsFiles[0].slots.prefix(partial.slots.count)))
    #expect(replayed.transferFaults.contains { if case .transferIncomplete(.metrics, _, _) = $0 { true } else { false } })
}

@Test func captureOfAnotherDeviceIsRecognisedAsHoldingNoBraceletData() throws {
    var writer = ATTCaptureWriter()
    writer.connect(unixMicros: 1_000_000)
    writer.append(.readRequest(handle: 0x0003), direction: .sent, unixMicros: 1_010_000)
    writer.append(.readResponse(value: Array("Thermostat".utf8)), direction: .received, unixMicros: 1_020_000)
    writer.append(.handleValueNotification(handle: 0x0010, value: [0x01, 0x02, 0x03]), direction: .received, unixMicros: 1_030_000)
    let replayed = try ReplayedCapture.load(bytes: writer.bytes)
    #expect(!replayed.hasData)
    #expect(replayed.statistics.attPDUs == 3)
    #expect(replayed.statistics.attributeHandles == [0x0003, 0x0010])
}

/// Every bundled capture opens in Wireshark's dissector with the same notifications we recover.
@Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tshark")),
      arguments: ["v1-day.btsnoop", "v2-three-days.btsnoop", "v2-daylight-saving.btsnoop", "v1-faulty-transfer.btsnoop"])
func tsharkDissectsEveryBundledCapture(_ name: String) throws {
    let path = BundledCaptures.directory.appendingPathComponent(name).path
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/tshark")
    process.arguments = ["-r", path, "-Y", "btatt.opcode == 0x1b", "-T", "fields", "-e", "btatt.handle"]
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    try process.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    let notifications = output.split(separator: "\n").count
    let reader = try ATTCaptureReader(contentsOfFile: path)
    let ours = reader.readAll().events.filter { $0.pdu.first == 0x1B }.count
    #expect(notifications > 1000)
    #expect(notifications == ours)
}
