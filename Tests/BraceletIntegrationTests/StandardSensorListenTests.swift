import BraceletDecoder
import BraceletStore
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `bracelet simulate --profile P` and `bracelet listen --via unix: --db D`, then `bracelet
/// summarize --db D`, as three real processes: a standard sensor's stream is the device's data, and
/// its day's summary of that profile is filled from exactly the rows the database kept.
@Suite("listen --db keeps a standard sensor's stream; summarize --db summarises it")
struct StandardSensorListenTests {
    /// Each profile: its sensor's serial, how long to listen (the thermometer reads every 5 s).
    @Test(arguments: [("heart-rate", "HRSIM001", 9.0), ("pulse-oximeter", "PLXSIM01", 9.0), ("thermometer", "HTSIM001", 13.0)])
    func aSensorsDayIsSummarised(profile: String, serial: String, seconds: Double) async throws {
        let bracelet = try builtBracelet()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sensor-\(profile)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let socket = folder.appendingPathComponent("s.sock").path, db = folder.appendingPathComponent("d.db").path

        let simulator = Process()
        simulator.executableURL = bracelet
        simulator.arguments = ["simulate", "--profile", profile, "--days", "1", "--serve", "unix:\(socket)", "--quiet"]
        simulator.standardError = FileHandle.nullDevice
        try simulator.run()
        defer { if simulator.isRunning { kill(simulator.processIdentifier, SIGKILL) } }
        for _ in 0..<200 where !FileManager.default.fileExists(atPath: socket) { try await Task.sleep(nanoseconds: 50_000_000) }

        let listen = Process()
        listen.executableURL = bracelet
        listen.arguments = ["listen", "--via", "unix:\(socket)", "--db", db, "--tz", "UTC", "--age", "40", "--quiet"]
        let lines = Pipe()
        listen.standardOutput = lines
        listen.standardError = FileHandle.nullDevice
        try listen.run()
        defer { if listen.isRunning { kill(listen.processIdentifier, SIGKILL) } }
        try await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
        kill(listen.processIdentifier, SIGINT)
        #expect(try await waitForExit(listen, seconds: 30))
        #expect(listen.terminationStatus == 130)  // ended by Ctrl-C, everything kept
        let printed = String(decoding: lines.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)

        // The rows: the sensor is a device like a bracelet, kept under its Device Information serial.
        let store = try Store(path: db, readOnly: true)
        let device = try #require(try store.devices().first)
        #expect(device.serial == serial)
        #expect(device.sensor == "Bracelet Labs \(profile == "heart-rate" ? "HRS" : profile == "thermometer" ? "HTS" : "PLX")-SIM")
        let slots = try store.slots(device: serial, from: 0, to: Int64.max / 2)
        #expect(slots.allSatisfy { $0.intervalSeconds == 1 && $0.steps == nil && $0.breath == nil })

        let summarize = Process()
        summarize.executableURL = bracelet
        summarize.arguments = ["summarize", "--db", db, "--tz", "UTC"]
        let out = Pipe(), notes = Pipe()
        summarize.standardOutput = out
        summarize.standardError = notes
        try summarize.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let said = String(decoding: notes.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        summarize.waitUntilExit()
        #expect(summarize.terminationStatus == 0)
        // The days summarize printed are the ones listen stored, read back: not a summary of the raw
        // rows made on the spot (which summarize falls back to when none is stored).
        #expect(!said.contains("raw rows"), "summarize did not read stored summaries: \(said)")
        let document = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        let days = try #require(document?["days"] as? [[String: Any]])
        #expect(!days.isEmpty)
        for day in days {
            let date = try #require(day["date"] as? String)
            let stored = try #require(try store.dailySummary(device: serial, localDate: date, kind: "daily"), "listen stored no summary of \(date)")
            let kept = try #require(try JSONSerialization.jsonObject(with: stored.json) as? [String: Any])
            for group in ["bpm", "spo2", "coreBodyTemperature"] {
                #expect(NSDictionary(dictionary: kept[group] as? [String: Any] ?? [:]) == NSDictionary(dictionary: day[group] as? [String: Any] ?? [:]),
                        "\(date) \(group): printed \(day[group] ?? "none"), stored \(kept[group] ?? "none")")
            }
        }
        func mean(_ values: [Double]) -> Double { values.reduce(0, +) / Double(values.count) }
        func sum(_ group: String, _ key: String) -> [Double] { days.compactMap { ($0[group] as? [String: Any])?[key] as? Double } }
        // What a sensor cannot measure stays null, never 0.
        #expect(days.allSatisfy { (($0["steps"] as? [String: Any])?["stepCount"]) is NSNull })
        #expect(days.allSatisfy { (($0["breath"] as? [String: Any])?["averageBreath"]) is NSNull })
        switch profile {
        case "heart-rate":
            let rates = slots.compactMap(\.bpm).map(Double.init)
            #expect(rates.count >= Int(seconds) - 3)
            #expect(printed.split(separator: "\n").filter { $0.hasPrefix("{\"kind\":\"hr\"") }.count >= rates.count)
            let average = try #require(sum("bpm", "averageBPM").first)
            #expect(abs(average - mean(rates)) <= 0.5)
            #expect(try store.beats(device: serial, fromMs: 0, toMs: Int64.max / 2).count >= rates.count)
            #expect(sum("spo2", "averageSpo2").isEmpty && sum("coreBodyTemperature", "averageCoreBodyTemperature").isEmpty)
        case "pulse-oximeter":
            let saturations = slots.compactMap(\.spo2).map(Double.init)
            #expect(saturations.count >= Int(seconds) - 3)
            #expect(printed.contains("{\"kind\":\"spo2\""))
            let average = try #require(sum("spo2", "averageSpo2").first)
            #expect(abs(average - mean(saturations)) <= 0.5)
            #expect((92...100).contains(average))
            // Its pulse rate is the day's heart rate (it has no Heart Rate Measurement).
            #expect(!sum("bpm", "averageBPM").isEmpty)
        default:
            let temperatures = slots.compactMap(\.coreTempC)
            #expect(temperatures.count >= 2)
            #expect(printed.contains("\"site\":\"tympanum\""))
            let average = try #require(sum("coreBodyTemperature", "averageCoreBodyTemperature").first)
            #expect(abs(average - mean(temperatures)) < 0.01)
            #expect((35...39).contains(average))
            #expect(sum("bpm", "averageBPM").isEmpty && sum("spo2", "averageSpo2").isEmpty)
        }
    }
}
