import BraceletCapture
import BraceletDecoder
import BraceletProtocol

/// Where replay writes. The output is created at the first record (or at the end), so a capture
/// without bracelet data leaves no empty file behind; a failure to create it is reported by ``finish()``.
final class ReplayOutput {
    private let path: String?
    private var out: TextOutput?
    private var openError: (any Error)?
    /// The bytes the file is expected to reach, reserved when it is created (``TextOutput/preallocate(_:)``).
    private let expectedBytes: Int

    /// Standard output, or the regular file at `path` (with `expectedBytes` of disk reserved for it).
    init(path: String?, expectedBytes: Int = 0) {
        self.path = path
        self.expectedBytes = expectedBytes
    }

    /// An output that is already open.
    init(_ out: TextOutput) {
        path = nil
        expectedBytes = 0
        self.out = out
    }

    /// The output, created on first use; `nil` when it could not be created.
    func target() -> TextOutput? {
        if out == nil, openError == nil {
            do {
                let created = try TextOutput(path: path)
                created.preallocate(expectedBytes)
                out = created
            } catch { openError = error }
        }
        return out
    }

    /// Flushes; throws when the output could not be created or written.
    func finish() throws {
        if let openError { throw openError }
        try target()?.flush()
        out?.releaseUnwritten()
    }
}

/// Formats replayed records as CSV or a table, one `String` per record: the formats people read.
/// JSON Lines, the bulk format, goes through ``ReplayJSONLines``.
final class ReplayWriter: ReplayRecordWriter {
    /// The formats written here.
    enum Format {
        case csv, table
    }

    let format: Format
    let output: ReplayOutput
    private var started = false

    init(format: Format, output: ReplayOutput) {
        self.format = format
        self.output = output
    }

    /// Writes text after the header row.
    private func write(_ text: String) {
        if !started { begin() }
        output.target()?.write(text)
    }

    static let slotKeys = ["t", "device", "model", "interval_s", "bpm", "bpm_q", "breath", "breath_q", "steps", "activity",
                           "speed", "energy_cal", "active_cal", "skin_temp_c", "core_temp_c", "spo2", "spo2_q", "eda_us",
                           "sleep_stage", "wearing", "battery"]

    /// The columns of the CSV format, which `bracelet summarize --csv` reads back: Unix milliseconds
    /// first, then the record's kind and description, the slot values, the beat's RR interval, a
    /// live notification's rate and intervals (under their own names, so that they never read as a
    /// slot) and the fields out of range.
    static let csvColumns = ["timestamp_ms", "kind"] + slotKeys + ["rr_ms", "hr_bpm", "hr_rr_ms", "out_of_range"]
    /// Empty cells for the slot values of a row that is not a slot.
    private static let emptySlotValues = String(repeating: ",", count: slotKeys.count - 4)

    func begin() {
        started = true
        switch format {
        case .csv: output.target()?.write(Self.csvColumns.joined(separator: ",") + "\n")
        case .table:
            output.target()?.write("t                     device    bpm  q  breath q  steps act  speed skin°C core°C spo2 q  eda µS stage wear batt\n")
        }
    }

    func slots(_ batch: MetricsColumns, header: FileHeader) {
        batch.forEachSlot { s, outOfRange in slot(s, serial: header.serial, model: header.model, outOfRange: outOfRange) }
    }

    func beats(_ batch: [Beat], header: FileHeader) {
        for b in batch { beat(b, serial: header.serial, model: header.model) }
    }

    func finish() throws {
        if !started { begin() }
        try output.finish()
    }

    /// Text of an optional number; empty (CSV) or `-` (table) when absent.
    func value(_ v: Int?) -> String { v.map(String.init) ?? (format == .csv ? "" : "-") }
    func value(_ v: Double?) -> String { v.map { $0.description } ?? (format == .csv ? "" : "-") }

    func slot(_ s: Slot, serial: String, model: DeviceModel, outOfRange: SlotFields) {
        let t = UTCTime.iso8601(unixSeconds: s.start)
        let values = [value(s.bpm), value(s.bpmQuality), value(s.breath), value(s.breathQuality), value(s.steps), value(s.activity),
                      value(s.speed), value(s.energyCal), value(s.activeCal), value(s.skinTempC), value(s.coreTempC), value(s.spo2),
                      value(s.spo2Quality), value(s.edaMicrosiemens), value(s.sleepStage), value(s.wearing), value(s.battery)]
        switch format {
        case .csv:
            write("\(s.start * 1000),slot,\(t),\(csvEscaped(serial)),\(model),\(s.intervalSeconds)," + values.joined(separator: ",") + ",,,," + outOfRange.names.joined(separator: ";") + "\n")
        case .table:
            func col(_ text: String, _ width: Int) -> String {
                String(repeating: " ", count: max(0, width - text.count)) + text
            }
            let row = [col(value(s.bpm), 4), col(value(s.bpmQuality), 2), col(value(s.breath), 7), col(value(s.breathQuality), 2),
                       col(value(s.steps), 6), col(value(s.activity), 4), col(value(s.speed), 6), col(value(s.skinTempC), 6),
                       col(value(s.coreTempC), 6), col(value(s.spo2), 4), col(value(s.spo2Quality), 2), col(value(s.edaMicrosiemens), 7),
                       col(value(s.sleepStage), 5), col(value(s.wearing), 4), col(value(s.battery), 4)]
            write("\(t)  \(serial.padding(8)) " + row.joined(separator: " ") + (outOfRange.isEmpty ? "" : "  out of range: " + outOfRange.names.joined(separator: ",")) + "\n")
        }
    }

    func beat(_ b: Beat, serial: String, model: DeviceModel) {
        let t = UTCTime.iso8601(unixMilliseconds: b.timeMs)
        switch format {
        case .csv:
            // Time, kind, t, device and model are filled, interval_s and the slot values stay empty;
            // an empty rr_ms is the first beat after a gap.
            write("\(b.timeMs),rr,\(t),\(csvEscaped(serial)),\(model)," + Self.emptySlotValues + ",\(value(b.rrMs)),,,\n")
        case .table:
            write("\(t)  \(serial.padding(8)) rr \(b.rrMs.map { "\($0) ms" } ?? "- (first beat after a gap)")\n")
        }
    }

    func heartRate(_ hr: CapturedHeartRate) {
        let t = UTCTime.iso8601(unixMilliseconds: hr.timestampMicros / 1000)
        let rr = hr.measurement.rrMilliseconds
        switch format {
        case .csv:
            write("\(hr.timestampMicros / 1000),hr,\(t),,," + Self.emptySlotValues + ",,\(hr.measurement.bpm)," + rr.map(String.init).joined(separator: ";") + ",\n")
        case .table:
            write("\(t)  live     hr \(hr.measurement.bpm) bpm, rr " + rr.map(String.init).joined(separator: " ") + " ms\n")
        }
    }
}

extension String {
    func padding(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}

/// Quotes a CSV cell when it holds a comma, quote or newline.
func csvEscaped(_ s: String) -> String {
    guard s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" }) else { return s }
    return "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
