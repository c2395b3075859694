import BraceletCapture
import BraceletTransport
import Foundation
import Testing
@testable import BraceletCLI

/// `listen --record` writes the capture while the session runs, a block at a time: the file grows
/// during the session (memory holds one block, not the whole capture), and what it holds at the end
/// reads back as every PDU recorded.
@Suite struct CaptureRecorderTests {
    @Test func theCaptureIsWrittenAsTheSessionGoesAndReadsBackWhole() throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/session.btsnoop"
        let recorder = try CaptureRecorder(path: path)
        recorder.connect(encrypted: false)
        let notifications = 4 * CaptureRecorder.blockBytes / 200
        for i in 0..<notifications {
            recorder.append(.handleValueNotification(handle: 0x0010, value: [UInt8](repeating: UInt8(i & 0xFF), count: 180)), direction: .received)
        }
        // Before the end, all but the last block is on disk already.
        let written = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        #expect(written >= 3 * CaptureRecorder.blockBytes)
        recorder.disconnect(clearing: SecuredLinks())
        try recorder.finish()
        let replayed = try ReplayedCapture.load(bytes: CaptureFile.read(path: path))
        #expect(replayed.statistics.connections == 1)
        #expect(replayed.statistics.attPDUs == notifications)
    }

    @Test func aPathThatCannotBeWrittenFailsBeforeTheSession() {
        let error = #expect(throws: CLIError.self) { try CaptureRecorder(path: "/nonexistent-folder/x.btsnoop") }
        #expect(error?.description.contains("check that its folder exists") == true)
    }
}
