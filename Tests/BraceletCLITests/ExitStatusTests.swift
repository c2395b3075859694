import ArgumentParser
import Foundation
import Testing
@testable import BraceletCLI

/// The bundled captures folder.
let capturesFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("captures").path

/// A copy of a bundled capture cut after `bytes` bytes: damaged in its last record.
func truncatedCapture(_ name: String, bytes: Int) throws -> String {
    let data = try Data(contentsOf: URL(fileURLWithPath: capturesFolder + "/" + name))
    let path = try scratchFolder() + "/cut.btsnoop"
    try data.prefix(bytes).write(to: URL(fileURLWithPath: path))
    return path
}

@Suite struct ExitStatusTests {
    @Test func ingestOfADamagedCaptureStoresWhatWasRecoveredAndExits3LikeReplay() throws {
        let capture = try truncatedCapture("v1-day.btsnoop", bytes: 400_000)
        let db = try scratchFolder() + "/d.db"
        let ingest = try IngestCommand.parse([capture, "--db", db, "--tz", "UTC"])
        #expect(throws: ExitCode(3)) { try ingest.run() }
        let replay = try ReplayCommand.parse([capture, "--quiet", "-o", db + ".jsonl"])
        #expect(throws: ExitCode(3)) { try replay.run() }
        let store = try openStore(db, mustExist: true)
        #expect(try !store.slots(device: "V1DAY001", from: 0, to: Int64.max / 2).isEmpty)
    }

    @Test func aCaptureWithoutBraceletDataExits2AsHelpSays() throws {
        let path = try scratchFolder() + "/empty.btsnoop"
        let header: [UInt8] = Array("btsnoop".utf8) + [0, 0, 0, 0, 1, 0, 0, 0x03, 0xEA]
        try Data(header).write(to: URL(fileURLWithPath: path))
        let replay = try ReplayCommand.parse([path])
        let error = #expect(throws: CLIError.self) { try replay.run() }
        #expect(error?.exitCode == 2)
        #expect(ReplayCommand.configuration.discussion.contains("2 when the capture holds no bracelet data"))
    }

    @Test func aCaptureWithOnlyForeignNotificationsNamesTheirHandlesInHex() throws {
        let path = try scratchFolder() + "/foreign.btsnoop"
        let header: [UInt8] = Array("btsnoop".utf8) + [0, 0, 0, 0, 1, 0, 0, 0x03, 0xEA]
        // One H4 ACL packet, received: a Handle Value Notification on handle 0x00AB over the ATT channel.
        let att: [UInt8] = [0x1B, 0xAB, 0x00, 0x01, 0x02]
        let l2cap: [UInt8] = [UInt8(att.count), 0, 0x04, 0x00] + att
        let packet: [UInt8] = [0x02, 0x40, 0x20, UInt8(l2cap.count), 0] + l2cap
        let length: [UInt8] = [0, 0, 0, UInt8(packet.count)]
        let record = length + length + [0, 0, 0, 1] + [0, 0, 0, 0] + [0, 0xE0, 0x3F, 0x7E, 0x43, 0x6E, 0x5B, 0x00] + packet
        try Data(header + record).write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: CLIError.self) { try ReplayCommand.parse([path]).run() }
        #expect(error?.exitCode == 2)
        #expect(error?.description.contains("on attribute handles [0x00AB]") == true)
    }
}

@Suite struct UnpairOptionTests {
    @Test func addressTypeTakesTheValuesScanPrintsAndNamesThemOnATypo() throws {
        #expect(try UnpairCommand.parse(["00:AA:01:01:00:01", "--address-type", "random"]).addressType == .random)
        #expect(try UnpairCommand.parse(["00:AA:01:01:00:01"]).addressType == nil)
        let message = UnpairCommand.message(for: #expect(throws: (any Error).self) {
            try UnpairCommand.parse(["00:AA:01:01:00:01", "--address-type", "pub"])
        }!)
        #expect(message.contains("'public'") && message.contains("'random'"))
    }
}
