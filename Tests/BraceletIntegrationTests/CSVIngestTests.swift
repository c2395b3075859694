import BraceletStore
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Runs the built `bracelet` with `arguments` in `folder`, its output in files there, and waits at
/// most `seconds` for it (then kills it and fails).
func runBuilt(_ arguments: [String], in folder: String, seconds: Double = 120) async throws -> (status: Int32, out: String, err: String) {
    let tag = UUID().uuidString
    let outPath = folder + "/stdout-\(tag)", errPath = folder + "/stderr-\(tag)"
    for path in [outPath, errPath] { _ = FileManager.default.createFile(atPath: path, contents: nil) }
    defer { for path in [outPath, errPath] { try? FileManager.default.removeItem(atPath: path) } }
    let process = Process()
    process.executableURL = try builtBracelet()
    process.arguments = arguments
    process.currentDirectoryURL = URL(fileURLWithPath: folder)
    process.standardOutput = FileHandle(forWritingAtPath: outPath)
    process.standardError = FileHandle(forWritingAtPath: errPath)
    try process.run()
    guard try await waitForExit(process, seconds: seconds) else {
        kill(process.processIdentifier, SIGKILL)
        throw StoreError.invalidInput("bracelet \(arguments.joined(separator: " ")) did not end within \(seconds) s")
    }
    return (process.terminationStatus, (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
            (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "")
}

/// Runs `body` in a fresh folder named after `prefix`, removed with everything in it when it ends.
func inTemporaryFolder(_ prefix: String, _ body: (String) async throws -> Void) async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    try await body(folder)
}

/// `bracelet ingest FILE.csv` stores a CSV history (what `replay --format csv` writes and
/// `summarize --csv` reads) through the one ingest pipeline: `summarize --db` then prints byte for
/// byte what `summarize --csv` prints of the file, and score, export and report work on it.
@Suite(.serialized) struct CSVIngestTests {
    static let captures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("captures").path

    func inFolder(_ body: (String) async throws -> Void) async throws { try await inTemporaryFolder("csv-ingest", body) }

    @Test func aStoredReplayCSVSummarisesByteForByteAsTheFile() async throws {
        try await inFolder { folder in
            let person = ["--tz", "America/New_York", "--age", "35"]
            let replay = try await runBuilt(["replay", Self.captures + "/v2-three-days.btsnoop", "--format", "csv", "-o", "v2.csv"], in: folder)
            #expect(replay.status == 0, "\(replay.err)")
            let ingest = try await runBuilt(["ingest", "v2.csv", "--db", "d.db"] + person, in: folder)
            #expect(ingest.status == 0, "\(ingest.err)")
            #expect(ingest.out.contains("stored 4317 new slots (0 already present) and 89300 new beats"), "\(ingest.out)")

            let fromFile = try await runBuilt(["summarize", "--csv", "v2.csv"] + person, in: folder)
            let fromDatabase = try await runBuilt(["summarize", "--db", "d.db"], in: folder)
            #expect(fromFile.status == 0 && fromDatabase.status == 0)
            #expect(fromFile.out.utf8.count > 1_000_000)
            #expect(fromDatabase.out == fromFile.out)  // byte for byte, every day and sleep session

            // The same rows as the capture stored directly.
            let direct = try await runBuilt(["ingest", Self.captures + "/v2-three-days.btsnoop", "--db", "direct.db"] + person, in: folder)
            #expect(direct.status == 0)
            let (csvStore, captureStore) = (try Store(path: folder + "/d.db", readOnly: true), try Store(path: folder + "/direct.db", readOnly: true))
            #expect(try csvStore.slots(device: "V23DAY01", from: 0, to: Int64.max / 2) == captureStore.slots(device: "V23DAY01", from: 0, to: Int64.max / 2))
            #expect(try csvStore.beats(device: "V23DAY01", fromMs: 0, toMs: Int64.max / 2).count == 89_300)

            // What reads the store works on it.
            let score = try await runBuilt(["score", "--db", "d.db", "--min-days", "1", "--include-incomplete", "--format", "json"], in: folder)
            #expect(score.status == 0, "\(score.err)")
            #expect(score.out.contains("\"total\""))
            let export = try await runBuilt(["export", "--db", "d.db", "--format", "csv"], in: folder)
            #expect(export.out.split(separator: "\r\n").count == 4)  // header and three days
            let report = try await runBuilt(["report", "--db", "d.db", "--day", "2026-06-17", "-o", "day.html"], in: folder)
            #expect(report.status == 0, "\(report.err)")
            #expect(((try? String(contentsOfFile: folder + "/day.html", encoding: .utf8)) ?? "").contains("<h2>Week</h2>"))

            // Stored again: nothing new.
            let again = try await runBuilt(["ingest", "v2.csv", "--db", "d.db"], in: folder)
            #expect(again.out.contains("stored 0 new slots (4317 already present)"), "\(again.out)")
        }
    }

    @Test func outOfRangeValuesAreTreatedAsMissingAlikeFromTheFileOrTheStore() async throws {
        try await inFolder { folder in
            // SpO2 255, heart rate 0 and 255, skin at 0.5 °C: outside the protocol's ranges.
            var csv = "timestamp_ms,bpm,bpm_q,spo2,spo2_q,skin_temp_c\n"
            for minute in 0..<120 {
                let inRange = minute % 3 == 0
                csv += "\(1_781_474_400_000 + Int64(minute) * 60_000),\(inRange ? 62 : (minute % 2 == 0 ? 0 : 255)),4,\(inRange ? 97 : 255),4,\(inRange ? 33.5 : 0.5)\n"
            }
            try csv.write(toFile: folder + "/odd.csv", atomically: true, encoding: .utf8)
            let noDevice = try await runBuilt(["ingest", "odd.csv", "--db", "d.db", "--tz", "UTC"], in: folder)
            #expect(noDevice.status != 0)
            #expect(noDevice.err.contains("has no device column: give the bracelet's serial with --device SERIAL"))
            #expect(!FileManager.default.fileExists(atPath: folder + "/d.db"))  // a failed first ingest leaves no database

            let ingest = try await runBuilt(["ingest", "odd.csv", "--db", "d.db", "--tz", "UTC", "--device", "CSV00001"], in: folder)
            #expect(ingest.status == 0, "\(ingest.err)")
            let fromFile = try await runBuilt(["summarize", "--csv", "odd.csv", "--tz", "UTC"], in: folder)
            let fromDatabase = try await runBuilt(["summarize", "--db", "d.db"], in: folder)
            #expect(fromDatabase.out == fromFile.out)
            let day = try #require(((try JSONSerialization.jsonObject(with: Data(fromDatabase.out.utf8)) as? [String: Any])?["days"] as? [[String: Any]])?.first)
            #expect((day["spo2"] as? [String: Any])?["averageSpo2"] as? Int == 97)
            #expect((day["bpm"] as? [String: Any])?["minDayBPM"] as? Int == 62)
            #expect((day["bodyTemp"] as? [String: Any])?["averageTemp"] as? Double == 33.5)

            let other = try await runBuilt(["ingest", "odd.csv", "--db", "d.db", "--tz", "UTC", "--device", "CSV00002"], in: folder)
            #expect(other.status == 0)  // another device's history in the same database
            let mixed = "timestamp_ms,device,bpm\n1781474400000,A,60\n1781474460000,B,61\n"
            try mixed.write(toFile: folder + "/mixed.csv", atomically: true, encoding: .utf8)
            let refused = try await runBuilt(["ingest", "mixed.csv", "--db", "d.db"], in: folder)
            #expect(refused.status != 0 && refused.err.contains("holds rows of several devices (A, B)"), "\(refused.err)")
            let dropped = try await runBuilt(["ingest", Self.captures + "/v1-day.btsnoop", "--db", "d.db", "--device", "X"], in: folder)
            #expect(dropped.status != 0 && dropped.err.contains("no CSV file was given"), "\(dropped.err)")
        }
    }
}
