import ArgumentParser
import BraceletCapture
import BraceletDecoder
import BraceletProtocol
import Foundation

/// `bracelet replay`: decode a recorded session and print what the bracelet measured.
struct ReplayCommand: ParsableCommand, LoggingCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Decode a recorded Bluetooth session (btsnoop) and print one record per slot.",
        discussion: """
            Reads a capture written by btmon (`btmon -w FILE`), Android's HCI snoop log, `bracelet listen \
            --record` or the bundled captures (/usr/share/bracelet/captures), recovers the files the bracelet transferred and prints \
            their slots, then beat-to-beat records (kind "rr") and live Heart Rate notifications (kind "hr").

            Slot keys: t (ISO-8601 UTC start), device, model, interval_s, bpm, bpm_q, breath, breath_q, \
            steps, activity, speed, energy_cal, active_cal, skin_temp_c, core_temp_c, spo2, spo2_q, \
            eda_us, sleep_stage, wearing, battery; null where the slot has no value. A value outside its \
            valid range is printed as recorded and listed under out_of_range.

            CSV (--format csv) starts each row with its Unix time in milliseconds (timestamp_ms) and \
            names the other columns like the keys above, so summarize reads it back:
              bracelet summarize --csv FILE

            Exit status: 0 when everything was recovered, 3 when the capture is damaged or a transfer \
            is incomplete (the good data is still printed), 2 when the capture holds no bracelet data, \
            1 when it cannot be read.
            """
    )

    @Argument(help: "The capture file (.btsnoop, datalink 1001, 1002 or 2001).")
    var capture: String

    @Option(help: "Output format: jsonl, csv or table.")
    var format: ReplayFormat = .jsonl

    @Option(name: .shortAndLong, help: "Write records to this file instead of standard output.")
    var output: String?

    @OptionGroup var log: LogOptions


    func run() throws {
        let started = ContinuousClock.now
        // Records are written as each file's transfer ends, straight from the decoder's batches; the
        // output is created at the first record.
        // A month of V2 records is 8.5 times its capture as JSON Lines (V1: 4.8 times).
        let captureBytes = (try? FileManager.default.attributesOfItem(atPath: capture))?[.size] as? Int ?? 0
        let output = ReplayOutput(path: output, expectedBytes: format == .jsonl ? min(captureBytes * 9, 1 << 30) : 0)
        let writer: any ReplayRecordWriter = switch format {
        case .jsonl: ReplayJSONLines(output: output)
        case .csv: ReplayWriter(format: .csv, output: output)
        case .table: ReplayWriter(format: .table, output: output)
        }
        let (replayed, size) = try streamCapture(capture, beatsLast: true, progress: { done, total in
            if total >= 8 << 20 { Log.info("reading capture: \(done >> 20) of \(total >> 20) MiB") }
        }, metrics: { _, header, batch in writer.slots(batch, header: header) },
           beats: { _, header, batch in writer.beats(batch, header: header) })
        guard replayed.hasData else {
            let handles = replayed.statistics.attributeHandles.map { "0x" + hexString($0, uppercase: true) }.joined(separator: ", ")
            throw CLIError("""
                no bracelet data in \(capture): found \(replayed.statistics.records) records, \(replayed.statistics.attPDUs) ATT PDUs \
                on attribute handles [\(handles)] but no bracelet file transfer and no Heart Rate notification. \
                Check that the capture was taken while a bracelet synced (bracelet listen --record FILE).
                """, exitCode: 2)
        }
        for hr in replayed.heartRates { writer.heartRate(hr) }
        try writer.finish()
        report(replayed, bytes: size, elapsed: ContinuousClock.now - started)
        if replayed.isIncomplete { throw ExitCode(3) }
    }

    func report(_ r: ReplayedCapture, bytes: Int, elapsed: Duration) {
        let slots = r.metricsFiles.reduce(0) { $0 + $1.records }
        let beats = r.beatsFiles.reduce(0) { $0 + $1.records }
        let seconds = elapsed.inSeconds
        let devices = Set(r.metricsFiles.map { "\($0.header.serial) (\($0.header.model))" }).sorted().joined(separator: ", ")
        Log.info("\(capture): \(r.metricsFiles.count) metrics files (\(slots) slots), \(r.beatsFiles.count) beats files (\(beats) beats), \(r.heartRates.count) heart-rate notifications from \(devices.isEmpty ? "a heart-rate sensor" : devices); \(bytes / 1024) KiB in \(Int(seconds * 1000)) ms")
        if r.duplicateFiles > 0 { Log.info("note: \(r.duplicateFiles) file(s) were transferred twice with identical content and are printed once") }
        for fault in r.captureFaults { Log.warning("warning: \(fault)") }
        for fault in r.transferFaults { Log.info("note: \(fault)") }
        for file in r.metricsFiles { for fault in file.faults { Log.warning("warning: metrics file of \(file.header.serial): \(fault)") } }
        for file in r.beatsFiles { for fault in file.faults { Log.warning("warning: beats file of \(file.header.serial): \(fault)") } }
        for problem in r.undecodableFiles { Log.warning("warning: could not decode \(problem)") }
    }
}

/// Output formats of `bracelet replay`.
enum ReplayFormat: String, ExpressibleByArgument, CaseIterable {
    case jsonl, csv, table
}
