import Foundation
import Testing
import BraceletStore

/// `bracelet replay --format jsonl` of the bundled captures, pinned by the SHA-256 of its output as
/// the text-building writer printed it: the byte writer must never change a record.
@Test(arguments: [("v1-day.btsnoop", "12fcacd827f68acd853e8914b7d4e2b22f3149e12752682afae9f8c10cda6285"),
                  ("v2-three-days.btsnoop", "d15030d30181ff48b98a0f5fee966b3767b686967b6fd9500eec5067c1a32c75")])
func replayJSONLinesOfTheBundledCapturesKeepTheirBytes(capture: String, sha256: String) async throws {
    let process = Process()
    process.executableURL = try builtBracelet()
    process.arguments = ["replay", Bundled.captures.appendingPathComponent(capture).path, "--format", "jsonl", "--quiet"]
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    #expect(output.count > 1_000_000)
    #expect(SHA256.hex([UInt8](output)) == sha256)
}
