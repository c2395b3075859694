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

/// The one progress reporter's words: done of total, the rate since the phase began and the time
/// left at it; unknown stays "?", never 0; a bar of 20 cells.
@Suite struct ProgressLineTests {
    @Test func countsRateAndTimeLeft() {
        let megabytes = ProgressReporter.counted(46_100_000, 112_300_000, 5, show: { ProgressReporter.megabytes($0) }, unit: "MB",
                                                 rateUnit: "MB/s", rateShow: { ProgressReporter.megabytes(Int($0)) })
        #expect(megabytes == "46.1/112.3 MB (41 %), 9.2 MB/s, 0:00:08 left")
        // Before a second has passed there is no rate and no time left yet.
        #expect(ProgressReporter.counted(0, 402, 0.2, show: String.init, unit: "days", rateUnit: "days/s", rateShow: ProgressReporter.rate)
                == "0/402 days (0 %)")
        #expect(ProgressReporter.counted(112, 402, 40, show: String.init, unit: "days", rateUnit: "days/s", rateShow: ProgressReporter.rate)
                == "112/402 days (27 %), 2.8 days/s, 0:01:44 left")
        #expect(ProgressReporter.bar(0.41) == "[########------------]")
        #expect(ProgressReporter.clockTime(3725.2) == "1:02:06")
    }

    @Test func aBacklogWithoutTotalsSaysSo() {
        #expect(ProgressReporter.backlogLine(BacklogProgress()) == "backlog 0/? files, 0.0/? MB, rate ?, time left ?")
    }

    @Test func theModeIsAnArgumentAndTheIntervalIsChecked() throws {
        #expect(try ProgressOptions.parse(["--progress", "never"]).progress == .never)
        #expect(try ProgressOptions.parse([]).progress == .auto)
        #expect(throws: (any Error).self) { try ProgressOptions.parse(["--progress", "sometimes"]) }
        #expect(throws: (any Error).self) { try ProgressOptions.parse(["--progress-interval", "0"]) }
        // Off: nothing is shown, whatever the library reports.
        #expect(try ProgressOptions.parse(["--progress", "never"]).reporter("ingest").form == .off)
    }
}
