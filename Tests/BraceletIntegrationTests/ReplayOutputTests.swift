import Foundation
import Testing
import BraceletStore

/// `bracelet replay --format jsonl` of the bundled captures, pinned by the SHA-256 of its output as
/// the text-building writer printed it: the byte writer must never change a record.
@Test(arguments: [("v1-day.btsnoop", "deb93c443a41c38883b710bc0f8977b12f163a6fa7d419d840ab5ff28a913c07"),
                  ("v2-three-days.btsnoop", "d7f54004273272c2434d3df0df571384628c9478a9dc568a5b69a5ced1278a2d")])
func replayJSONLinesOfTheBundledCapturesKeepTheirBytes(capture: String, sha256: String) async throws {
    let (status, output, _) = try runBuiltBracelet(["replay", Bundled.captures.appendingPathComponent(capture).path, "--format", "jsonl", "--quiet"])
    #expect(status == 0)
    #expect(output.count > 1_000_000)
    #expect(SHA256.hex([UInt8](output)) == sha256)
}
