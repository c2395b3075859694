#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
import BraceletDecoder
import BraceletProtocol
import BraceletSummaries
@testable import BraceletCLI

/// A fresh folder under /tmp for one test.
func scratchFolder() throws -> String {
    var template = Array("/tmp/bracelet-cli-XXXXXX".utf8CString)
    let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    try #require(made != nil)
    return String(cString: made!)
}

/// The bytes of the file at `path`.
func contents(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

@Suite struct OutputTests {
    @Test func outputNeverReplacesAPipeALinkOrAFolder() throws {
        let folder = try scratchFolder()
        let fifo = folder + "/pipe", link = folder + "/link", target = folder + "/target.txt"
        #expect(mkfifo(fifo, 0o600) == 0)
        _ = FileManager.default.createFile(atPath: target, contents: Data("keep".utf8))
        #expect(symlink(target, link) == 0)
        for path in [fifo, link, folder] {
            let error = #expect(throws: CLIError.self) { try TextOutput(path: path) }
            #expect(error?.description.hasPrefix("\(path) is ") == true)
        }
        var st = stat()
        #expect(lstat(fifo, &st) == 0 && st.st_mode & S_IFMT == S_IFIFO)
        #expect(lstat(link, &st) == 0 && st.st_mode & S_IFMT == S_IFLNK)
        #expect(contents(target) == "keep")
    }

    @Test func outputTruncatesARegularFile() throws {
        let path = try scratchFolder() + "/out.txt"
        _ = FileManager.default.createFile(atPath: path, contents: Data("old content that is longer".utf8))
        let out = try TextOutput(path: path)
        out.write("new\n")
        try out.flush()
        #expect(contents(path) == "new\n")
    }

    @Test func aFailedWriteIsAnErrorNotATrap() throws {
        // /dev/full accepts the open and fails every write with ENOSPC.
        let out = TextOutput(handle: FileHandle(forWritingAtPath: "/dev/full")!, path: "/dev/full")
        out.write(String(repeating: "x", count: 70_000))
        let error = #expect(throws: CLIError.self) { try out.flush() }
        #expect(error?.description.contains("No space left on device") == true)
    }

    @Test func csvBeatRowsPutRRUnderItsOwnColumn() throws {
        let path = try scratchFolder() + "/replay.csv"
        let writer = ReplayWriter(format: .csv, output: ReplayOutput(try TextOutput(path: path)))
        writer.beat(Beat(timeMs: 1_795_219_200_000, rrMs: 812), serial: "V1DAY001", model: .v1)
        writer.beat(Beat(timeMs: 1_795_219_201_000, rrMs: nil), serial: "V1DAY001", model: .v1)
        try writer.finish()
        let rows = contents(path).split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        #expect(rows.count == 3)
        #expect(rows[1].count == rows[0].count && rows[2].count == rows[0].count)
        #expect(rows[0].first == "timestamp_ms" && rows[1].first == "1795219200000")
        let rrColumn = try #require(rows[0].firstIndex(of: "rr_ms"))
        #expect(rows[1][rrColumn] == "812")
        #expect(rows[2][rrColumn] == "")
        #expect(rows[1][try #require(rows[0].firstIndex(of: "battery"))] == "")
    }

    /// The CSV replay writes is an input of `summarize --csv`: read back, it gives the slots, the beats
    /// (gap markers included) and so the daily summaries of the capture itself.
    @Test func replayCSVReadsBackToTheSameDailySummaries() throws {
        for name in ["v2-three-days.btsnoop", "v1-day.btsnoop"] {
            let capture = capturesFolder + "/" + name
            let csv = try scratchFolder() + "/replay.csv"
            try ReplayCommand.parse([capture, "--format", "csv", "-o", csv, "--quiet"]).run()
            let direct = try SampleInput.capture(capture)
            let readBack = try SampleInput.csv(csv, intervalSeconds: nil)
            #expect(readBack.notes.isEmpty)
            #expect(readBack.beats == direct.beats)
            #expect(readBack.beats.contains { $0.rrMs == nil })
            let configuration = try PersonOptions.parse(["--tz", "UTC", "--age", "35"]).configuration(recordedOffsetSeconds: nil)
            let now: Int64 = 1_900_000_000
            let expected = SummaryEngine.summarize(slots: direct.slots, beats: direct.beats, configuration: configuration, now: now).document
            let actual = SummaryEngine.summarize(slots: readBack.slots, beats: readBack.beats, configuration: configuration, now: now).document
            #expect(!expected.days.isEmpty)
            #expect(try actual.jsonData() == expected.jsonData())
        }
    }
}
