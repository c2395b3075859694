#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization
import Testing
import BraceletDecoder
import BraceletProtocol
import BraceletSummaries
@testable import BraceletCLI

/// The folders ``scratchFolder()`` made, removed when the test process exits.
private let scratchFolders = Mutex<[String]>([])

/// A fresh folder in the temporary directory for one test, removed with everything in it when the
/// test process exits (the tests leave nothing behind).
func scratchFolder() throws -> String {
    var template = Array((NSTemporaryDirectory() + "bracelet-cli-XXXXXX").utf8CString)
    let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    try #require(made != nil)
    let path = String(cString: made!)
    scratchFolders.withLock { folders in
        if folders.isEmpty {
            atexit { for folder in scratchFolders.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: folder) } }
        }
        folders.append(path)
    }
    return path
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

/// Beat lines as `description` and `UTCTime` would write them, built without the writer's shortcuts.
private func expectedBeatLine(_ beat: Beat, serial: String) -> String {
    let seconds = beat.timeMs >= 0 ? beat.timeMs / 1000 : (beat.timeMs - 999) / 1000
    let milli = beat.timeMs - seconds * 1000
    var date: [UInt8] = []
    UTCTime.appendISO8601(unixSeconds: seconds, to: &date)
    let stamp = String(decoding: date, as: UTF8.self).dropLast()  // the Z
    let ms = String(milli).count == 3 ? String(milli) : String(repeating: "0", count: 3 - String(milli).count) + String(milli)
    return #"{"kind":"rr","t":""# + stamp + "." + ms + #"Z","device":""# + serial + #"","model":"v2","rr_ms":"#
        + (beat.rrMs.map(String.init) ?? "null") + "}"
}

/// A bracelet's serial, and one long enough that the device part of a line spans several of the
/// writer's fixed-size copies.
@Test(arguments: ["V2SIM001", String(repeating: "LONG-SERIAL-", count: 8)])
func jsonLinesBeatLinesMatchTheirDefinitionAcrossDaysDigitsAndBlocks(serial: String) throws {
    let path = try scratchFolder() + "/beats.jsonl"
    let writer = ReplayJSONLines(output: ReplayOutput(try TextOutput(path: path)))
    let header = FileHeader(kind: .beats, model: .v2, serial: serial, baseTime: 0, timeZoneOffsetMinutes: 0,
                            intervalSeconds: 0, recordCount: 0)
    // Every digit count of an RR interval (and a negative one, which no file holds but a `Beat` may),
    // a gap, a time before 1970, both sides of midnight and of a new year, then enough beats (15 000,
    // about 1.3 MB) that the 1 MiB output block goes out mid-batch.
    var beats = [0, 7, 42, 99, 100, 999, 1000, 9999, 10_000, 65_534, -5].enumerated().map {
        Beat(timeMs: 1_767_225_599_000 + Int64($0.offset) * 123, rrMs: $0.element)
    }
    beats.append(Beat(timeMs: 1_767_225_600_000, rrMs: nil))
    beats.append(Beat(timeMs: -1_500, rrMs: 812))
    beats += (0..<15_000).map { Beat(timeMs: 1_795_219_199_000 + Int64($0) * 777, rrMs: 400 + $0 % 1300) }
    writer.beats(Array(beats[..<5]), header: header)
    writer.beats(Array(beats[5...]), header: header)
    try writer.finish()
    let lines = contents(path).split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines.count == beats.count + 1 && lines.last == "")
    for (line, beat) in zip(lines, beats) where line != expectedBeatLine(beat, serial: serial) {
        Issue.record("beat \(beat): wrote \(line), expected \(expectedBeatLine(beat, serial: serial))")
        break
    }
}

/// A slot line built from the record's `Slot` and field names with `description`: the definition
/// the column writer must match.
private func expectedSlotLine(_ s: Slot, _ outOfRange: SlotFields, serial: String, model: String) -> String {
    var date: [UInt8] = []
    UTCTime.appendISO8601(unixSeconds: s.start, to: &date)
    func text<T>(_ v: T?) -> String { v.map { "\($0)" } ?? "null" }
    let fields: [(String, String)] = [
        ("bpm", text(s.bpm)), ("bpm_q", text(s.bpmQuality)), ("breath", text(s.breath)), ("breath_q", text(s.breathQuality)),
        ("steps", text(s.steps)), ("activity", text(s.activity)), ("speed", text(s.speed)), ("energy_cal", text(s.energyCal)),
        ("active_cal", text(s.activeCal)), ("skin_temp_c", text(s.skinTempC)), ("core_temp_c", text(s.coreTempC)),
        ("spo2", text(s.spo2)), ("spo2_q", text(s.spo2Quality)), ("eda_us", text(s.edaMicrosiemens)),
        ("sleep_stage", text(s.sleepStage)), ("wearing", text(s.wearing)), ("battery", text(s.battery)),
    ]
    var line = #"{"kind":"slot","t":""# + String(decoding: date, as: UTF8.self) + #"","device":""# + serial
        + #"","model":""# + model + #"","interval_s":"# + "\(s.intervalSeconds)"
    for (key, value) in fields { line += ",\"\(key)\":\(value)" }
    if !outOfRange.isEmpty { line += #","out_of_range":["# + outOfRange.names.map { "\"\($0)\"" }.joined(separator: ",") + "]" }
    return line + "}"
}

/// Slots whose fields walk through each field's boundary values (missing, 0, the edges of the valid
/// range and past them, the largest wire value), offset per field so that records mix them, of both
/// models, through the decoder and the column writer, in odd-sized batches.
@Test(arguments: [DeviceModel.v1, .v2])
func jsonLinesSlotLinesMatchTheirDefinitionForEveryFieldValue(model: DeviceModel) throws {
    let small: [Int?] = [nil, 0, 3, 4, 5, 7, 30, 100, 101, 220, 221, 254]
    let halfWords: [Int?] = [nil, 0, 1, 99, 100, 500, 2500, 4500, 4501, 10_000, 65_534]
    let words: [Int?] = [nil, 0, 1, 999, 1000, 3600, 4_294_967_294]
    var field = 0
    func next<T>(_ values: [T], _ i: Int) -> T {
        field += 1
        return values[(i * 5 + field * 3) % values.count]
    }
    func hundredths(_ i: Int) -> Double? { next(halfWords, i).map { Double($0) / 100 } }
    let slots: [Slot] = (0..<700).map { i in
        field = 0
        var s = Slot(start: 1_767_225_000 + Int64(i) * 30, intervalSeconds: 30)
        s.bpm = next(small, i); s.bpmQuality = next(small, i); s.breath = hundredths(i); s.breathQuality = next(small, i)
        s.activity = next(small, i); s.steps = next(halfWords, i); s.speed = hundredths(i); s.skinTempC = hundredths(i)
        s.energyCal = next(words, i); s.activeCal = next(words, i)
        s.wearing = next(small, i); s.sleepStage = next(small, i); s.battery = next(small, i)
        if model == .v2 {
            s.spo2 = next(small, i); s.spo2Quality = next(small, i); s.coreTempC = hundredths(i); s.edaMicrosiemens = hundredths(i)
        }
        return s
    }
    let file = try MetricsRecordEncoder(model: model).sealedFile(serial: "S1", timeZoneOffsetMinutes: 0, intervalSeconds: 30,
                                                                 firstStart: slots[0].start, slots: slots)
    let path = try scratchFolder() + "/slots.jsonl"
    let writer = ReplayJSONLines(output: ReplayOutput(try TextOutput(path: path)))
    let header = FileHeader(kind: .metrics, model: model, serial: "S1", baseTime: slots[0].start, timeZoneOffsetMinutes: 0,
                            intervalSeconds: 30, recordCount: slots.count)
    var expected: [String] = []
    _ = try file.withUnsafeBytes { raw in
        try FileDecoder.decodeMetrics(raw, columns: MetricsColumns(capacity: 77)) { c in
            for i in 0..<c.count { expected.append(expectedSlotLine(c.slot(at: i), c.outOfRange(at: i), serial: "S1", model: "\(model)")) }
            writer.slots(c, header: header)
        }
    }
    try writer.finish()
    let lines = contents(path).split(separator: "\n").map(String.init)
    #expect(lines.count == slots.count)
    #expect(expected.filter { $0.contains("out_of_range") }.count > 500)
    #expect(expected.filter { $0.contains("null") }.count > 500)
    for (line, want) in zip(lines, expected) where line != want {
        Issue.record("wrote \(line), expected \(want)")
        break
    }
}
