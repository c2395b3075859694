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
}
