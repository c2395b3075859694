import BraceletDecoder
import Foundation

/// Samples and beats read from a CSV file, with what was wrong in it.
public struct CSVSampleInput: Sendable, Equatable {
    /// One slot per row that had at least one slot value.
    public var slots: [Slot]
    /// One beat per row with an `rr_ms` value (fractions rounded to the millisecond); a row whose
    /// `rr_ms` cannot be read is a beat without an interval, so that no interval is taken across it.
    public var beats: [Beat]
    /// How many `rr_ms` cells held something that is not an interval (not a number in range, or in
    /// a row skipped for its timestamp): intervals the file held that cannot be used.
    public var unreadableIntervals = 0
    /// The slot interval used (given, or inferred from the row spacing); nil when there were no slot rows.
    public var intervalSeconds: Int32?
    /// Problems in single rows or cells; those rows and cells were skipped, the rest used.
    public var diagnostics: [SummaryDiagnostic]
    /// The serial numbers a `device` column names (replay's CSV has one), in order of first
    /// appearance; empty without such a column.
    public var devices: [String] = []
    /// The first model a `model` column names (`V1`, `V2`); nil without one.
    public var model: String?

    /// An input of these rows.
    public init(slots: [Slot], beats: [Beat], intervalSeconds: Int32?, diagnostics: [SummaryDiagnostic],
                devices: [String] = [], model: String? = nil) {
        self.slots = slots
        self.beats = beats
        self.intervalSeconds = intervalSeconds
        self.diagnostics = diagnostics
        self.devices = devices
        self.model = model
    }
}

/// A CSV file that cannot be used at all.
public enum CSVInputError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file has no header line.
    case empty
    /// The header line starts with a number, so there is no header.
    case missingHeader(firstCell: String)
    /// The header names no known column besides the timestamp.
    case noKnownColumns(header: [String])
    /// The interval was not given and the rows do not show one.
    case cannotInferInterval(reason: String)
    /// The given interval is outside 1...3600 s.
    case badInterval(Int)

    /// What was wrong and what to do.
    public var description: String {
        switch self {
        case .empty:
            "the CSV file is empty: it needs a header line (timestamp_ms,bpm,bpm_q,...) and data rows"
        case .missingHeader(let cell):
            "line 1 starts with '\(cell)', not a column name: add a header line such as timestamp_ms,bpm,bpm_q"
        case .noKnownColumns(let header):
            "the header (\(header.joined(separator: ","))) names no known column: use \(CSVSampleReader.knownColumns.joined(separator: ", "))"
        case .cannotInferInterval(let reason):
            "cannot tell the sample interval (\(reason)): pass it with --interval-s N"
        case .badInterval(let seconds):
            "interval \(seconds) s is outside 1...3600 s: pass the spacing of the rows in seconds"
        }
    }
}

/// Reads CSV exports (study portals, other devices) into slots and beats.
///
/// The first column is a Unix timestamp in milliseconds (any header name); the others are named like
/// the replay keys. An empty cell is nil. Lines starting with `#` and blank lines are skipped. Lines
/// end at `\n` (a `\r` before it is dropped), cells at `,`; spaces and tabs around lines and cells
/// and double quotes around cells are dropped.
public enum CSVSampleReader {
    /// Columns this reader understands (besides the first, timestamp, column).
    public static let knownColumns = CSVColumn.names
    /// The other columns of `bracelet replay --format csv`, read without a note: `kind` marks a
    /// beat row (an `rr` row with an empty `rr_ms` is the first beat after a gap); the rest describe
    /// the row for people and are not needed here.
    public static let replayColumns: Set<String> = ["kind", "t", "device", "model", "interval_s", "hr_bpm", "hr_rr_ms", "out_of_range"]

    /// One data row: its values by column, present where the bit of the column is set.
    private struct Row {
        var line: Int
        var timeMs: Int64
        var values: [Double]
        var present: UInt32
        /// A beat row of replay's CSV without an interval: the first beat after a gap.
        var gapBeat = false
        /// Its `rr_ms` cell held something that is not an interval.
        var unreadableRR = false

        static let rrBit: UInt32 = 1 << CSVColumn.rr.rawValue
        /// Whether the row has a slot value (any column but `rr_ms`).
        var hasSlotValue: Bool { present & ~Self.rrBit != 0 }
        func value(_ column: CSVColumn) -> Double? {
            present & (1 << column.rawValue) != 0 ? values[column.rawValue] : nil
        }
    }

    /// Parses CSV text.
    ///
    /// - Parameter intervalSeconds: the slot interval; nil infers it from the most common spacing of slot rows.
    /// - Throws: ``CSVInputError`` when the file as a whole cannot be used.
    public static func read(_ text: String, intervalSeconds: Int? = nil) throws(CSVInputError) -> CSVSampleInput {
        var text = text
        // The parsing works on the UTF-8 bytes: the separators are ASCII.
        let result = text.withUTF8 { read(utf8: $0, intervalSeconds: intervalSeconds) }
        return try result.get()
    }

    private static func read(utf8: UnsafeBufferPointer<UInt8>, intervalSeconds: Int?) -> Result<CSVSampleInput, CSVInputError> {
        var report = DiagnosticCollector()
        var lineNumber = 0
        var header: [String]?
        var headerColumns: [CSVColumn?] = []
        var kindIndex: Int?, deviceIndex: Int?, modelIndex: Int?
        var devices: [String] = [], model: String?
        // The device cell of the previous row: a new serial is made into a String only when it changes.
        var lastDevice: [UInt8] = []
        var rows: [Row] = []
        var unreadable = 0
        var lineStart = 0
        while lineStart <= utf8.count {
            let lineEnd = utf8[lineStart...].firstIndex(of: UInt8(ascii: "\n")) ?? utf8.count
            defer { lineStart = lineEnd + 1 }
            lineNumber += 1
            let line = CSVBytes(base: utf8, start: lineStart, end: lineEnd).trimmed {
                $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\r")
            }
            if line.isEmpty || utf8[line.start] == UInt8(ascii: "#") { continue }
            let cells = line.cells()
            guard let columns = header else {
                let first = cells[0].string
                if Double(first) != nil { return .failure(.missingHeader(firstCell: first)) }
                let names = cells.map { $0.string.lowercased() }
                for name in names.dropFirst() where CSVColumn(name: name) == nil && !replayColumns.contains(name) {
                    report.add(SummaryDiagnostic(kind: .csvUnknownColumn, row: lineNumber, column: name, message:
                        "line \(lineNumber): column '\(name)' is not a known key and is ignored; known keys are \(knownColumns.joined(separator: ", "))"))
                }
                headerColumns = names.enumerated().map { $0.offset == 0 ? nil : CSVColumn(name: $0.element) }
                kindIndex = names.firstIndex(of: "kind")
                deviceIndex = names.firstIndex(of: "device")
                modelIndex = names.firstIndex(of: "model")
                guard headerColumns.contains(where: { $0 != nil }) else { return .failure(.noKnownColumns(header: names)) }
                header = names
                continue
            }
            guard let stamp = cells[0].timestamp, stamp >= 100_000_000_000, stamp < 100_000_000_000_000 else {
                if let rr = headerColumns.firstIndex(of: .rr), rr < cells.count, !cells[rr].isEmpty { unreadable += 1 }
                report.add(SummaryDiagnostic(kind: .csvBadRow, row: lineNumber, column: columns.first, message:
                    "line \(lineNumber): timestamp '\(cells[0].string)' is not Unix milliseconds (13 digits): the row was skipped; write the time as milliseconds since 1970"))
                continue
            }
            if cells.count < columns.count {
                report.add(SummaryDiagnostic(kind: .csvMissingCell, time: stamp / 1000, row: lineNumber, column: columns[cells.count], message:
                    "line \(lineNumber): \(cells.count) cells for \(columns.count) columns, '\(columns[cells.count])' onwards missing: they were read as empty; check the separator and quoting"))
            } else if cells.count > columns.count {
                report.add(SummaryDiagnostic(kind: .csvExtraCells, time: stamp / 1000, row: lineNumber, message:
                    "line \(lineNumber): \(cells.count) cells for \(columns.count) columns: the extra cells were ignored; check the separator and quoting"))
            }
            var row = Row(line: lineNumber, timeMs: stamp, values: Array(repeating: 0, count: CSVColumn.allCases.count), present: 0)
            for index in 1..<min(cells.count, columns.count) {
                let cell = cells[index]
                guard !cell.isEmpty, let column = headerColumns[index] else { continue }
                let range = column.range
                guard let value = cell.double, value.isFinite, range.contains(value),
                      column.isDecimal || value == value.rounded() else {
                    if column == .rr { row.unreadableRR = true }
                    report.add(SummaryDiagnostic(kind: .csvBadCell, time: stamp / 1000, row: lineNumber, column: column.name, message:
                        "line \(lineNumber), column '\(column.name)': '\(cell.string)' is not \(column.isDecimal ? "a number" : "a whole number") in \(Int(range.lowerBound))...\(Int(range.upperBound)): read as empty, the rest of the row was used"))
                    continue
                }
                row.values[column.rawValue] = value
                row.present |= 1 << column.rawValue
            }
            if let deviceIndex, deviceIndex < cells.count, !cells[deviceIndex].isEmpty,
               !cells[deviceIndex].bytesEqual(lastDevice) {
                lastDevice = cells[deviceIndex].bytes
                let serial = cells[deviceIndex].string
                if !devices.contains(serial) { devices.append(serial) }
            }
            if model == nil, let modelIndex, modelIndex < cells.count, !cells[modelIndex].isEmpty { model = cells[modelIndex].string }
            if let kindIndex, kindIndex < cells.count, row.value(.rr) == nil {
                row.gapBeat = cells[kindIndex].string == "rr"
            }
            rows.append(row)
        }
        guard header != nil else { return .failure(.empty) }

        var interval: Int32?
        if let given = intervalSeconds {
            guard (1...3600).contains(given) else { return .failure(.badInterval(given)) }
            interval = Int32(given)
        } else if rows.contains(where: \.hasSlotValue) {
            do { interval = try inferInterval(rows.lazy.filter(\.hasSlotValue).map(\.timeMs)) } catch { return .failure(error) }
        }
        var slots: [Slot] = []
        var beats: [Beat] = []
        for row in rows {
            if let rr = row.value(.rr) {
                beats.append(Beat(timeMs: row.timeMs, rrMs: Int(rr.rounded())))
            } else if row.gapBeat || row.unreadableRR {
                beats.append(Beat(timeMs: row.timeMs, rrMs: nil))
                if row.unreadableRR { unreadable += 1 }
            }
            guard let interval, row.hasSlotValue else { continue }
            slots.append(makeSlot(start: row.timeMs / 1000, interval: interval, row: row))
        }
        var input = CSVSampleInput(slots: slots, beats: beats, intervalSeconds: interval, diagnostics: report.diagnostics,
                                   devices: devices, model: model)
        input.unreadableIntervals = unreadable
        return .success(input)
    }

    private static func inferInterval(_ times: some Sequence<Int64>) throws(CSVInputError) -> Int32 {
        let sorted = Set(times).sorted()
        guard sorted.count >= 2 else { throw .cannotInferInterval(reason: "only one row with slot values") }
        var counts: [Int64: Int] = [:]
        for i in 1..<sorted.count {
            let seconds = (sorted[i] - sorted[i - 1] + 500) / 1000
            if seconds > 0 { counts[seconds, default: 0] += 1 }
        }
        guard let best = counts.max(by: { $0.value != $1.value ? $0.value < $1.value : $0.key > $1.key })?.key else {
            throw .cannotInferInterval(reason: "rows are less than half a second apart")
        }
        guard (1...3600).contains(best) else {
            throw .cannotInferInterval(reason: "the most common spacing is \(best) s, outside 1...3600 s")
        }
        return Int32(best)
    }

    private static func makeSlot(start: Int64, interval: Int32, row: Row) -> Slot {
        func int(_ column: CSVColumn) -> Int? { row.value(column).map { Int($0) } }
        var slot = Slot(start: start, intervalSeconds: interval)
        slot.bpm = int(.bpm); slot.bpmQuality = int(.bpmQuality)
        slot.breath = row.value(.breath); slot.breathQuality = int(.breathQuality)
        slot.steps = int(.steps); slot.activity = int(.activity); slot.speed = row.value(.speed)
        slot.energyCal = int(.energyCal); slot.activeCal = int(.activeCal)
        slot.skinTempC = row.value(.skinTempC); slot.coreTempC = row.value(.coreTempC)
        slot.spo2 = int(.spo2); slot.spo2Quality = int(.spo2Quality); slot.edaMicrosiemens = row.value(.eda)
        slot.sleepStage = int(.sleepStage); slot.wearing = int(.wearing); slot.battery = int(.battery)
        return slot
    }
}
