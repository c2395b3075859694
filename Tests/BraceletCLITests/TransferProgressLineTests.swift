import BraceletTransport
import Foundation
import Testing
@testable import BraceletCLI

/// `listen --format json` progress lines are written by the canonical writer: sorted keys, strings
/// escaped, and `null` (never 0) for what is not known yet.
@Suite struct TransferProgressLineTests {
    @Test func eventLinesAreCanonicalJSON() {
        #expect(TransferProgressOutput.json(.linkLost("peer \"gone\"/reset")) == #"{"kind":"link_lost","reason":"peer \"gone\"/reset"}"#)
        #expect(TransferProgressOutput.json(.committed(kind: .metrics, size: 4096)) == #"{"file_kind":"metrics","kind":"committed","size":4096}"#)
    }

    @Test func progressBeforeAnyBacklogHasNullsNotZeros() throws {
        let line = TransferProgressOutput.jsonProgress(BacklogProgress())
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["kind"] as? String == "progress")
        #expect(object["files_total"] is NSNull)
        #expect(object["bytes_total"] is NSNull)
        #expect(object["file_kind"] is NSNull)
        #expect(object["files_done"] as? Int == 0)
    }
}
