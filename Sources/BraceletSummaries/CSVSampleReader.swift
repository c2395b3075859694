import BraceletDecoder
import Foundation

/// Samples and beats read from a CSV file, with what was wrong in it.
public struct CSVSampleInput: Sendable, Equatable {
    /// One slot per row that had at least one slot value.
    public var slots: [Slot]
    /// One beat per row with an `rr_ms` value.
    public var beats: [Beat]
    /// The slot interval used (given, or inferred from the row spacing); nil when there were no slot rows.
    public var intervalSeconds: Int32?
    /// Problems in single rows or cells; those rows and cells were skipped, the rest used.
    public var diagnostics: [SummaryDiagnostic]
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
/// the replay keys. An empty cell is nil. Lines starting with `#` and blank lines are skipped.
public enum CSVSampleReader {
    /// Columns this reader understands (besides the first, timestamp, column).
    public static let knownColumns = ["bpm", "bpm_q", "breath", "breath_q", "steps", "activity", "speed", "energy_cal",
                                      "active_cal", "skin_temp_c", "core_temp_c", "spo2", "spo2_q", "eda_us",
                                      "sleep_stage", "wearing", "battery", "rr_ms"]
    /// The other columns of `bracelet replay --format csv`, read without a note: `kind` marks a
    /// beat row (an `rr` row with an empty `rr_ms` is the first beat after a gap); the rest describe
    /// the row for people and are not needed here.
    public static let replayColumns: Set<String> = ["kind", "t", "device", "model", "interval_s", "hr_bpm", "hr_rr_ms", "out_of_range"]

    /// Cell ranges of the non-physiological columns. The physiological columns (heart rate, breath,
    /// SpO2, temperatures, EDA) take any number that fits: their ranges live in one place,
    /// ``PhysiologicalRanges``, where the summary treats a value outside as missing and counts it
    /// per day.
    private static let ranges: [String: ClosedRange<Double>] = [
        "bpm": physiological, "bpm_q": 0...4, "breath": physiological, "breath_q": 0...4, "steps": 0...65_535,
        "activity": 0...255, "speed": 0...100, "energy_cal": 0...10_000_000, "active_cal": 0...10_000_000,
        "skin_temp_c": physiological, "core_temp_c": physiological, "spo2": physiological, "spo2_q": 0...4,
        "eda_us": physiological, "sleep_stage": 0...4, "wearing": 0...4, "battery": 0...100, "rr_ms": 0...65_535,
    ]
    /// What a physiological cell may hold to be stored at all (finite and representable).
    private static let physiological: ClosedRange<Double> = -1e9...1e9
    private static let decimalColumns: Set<String> = ["breath", "speed", "skin_temp_c", "core_temp_c", "eda_us"]

    /// Parses CSV text.
    ///
    /// - Parameter intervalSeconds: the slot interval; nil infers it from the most common spacing of slot rows.
    /// - Throws: ``CSVInputError`` when the file as a whole cannot be used.
    public static func read(_ text: String, intervalSeconds: Int? = nil) throws(CSVInputError) -> CSVSampleInput {
        var report = DiagnosticCollector()
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
        var lineNumber = 0
        var header: [String]?
        var rows: [(line: Int, timeMs: Int64, values: [String: Double], gapBeat: Bool)] = []
        for raw in lines {
            lineNumber += 1
            let line = raw.trimmingCharacters(in: [" ", "\t", "\r"])
            if line.isEmpty || line.hasPrefix("#") { continue }
            let cells = line.split(separator: ",", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: [" ", "\t", "\""])
            }
            guard let columns = header else {
                if let first = cells.first, Double(first) != nil { throw .missingHeader(firstCell: first) }
                let names = cells.map { $0.lowercased() }
                for name in names.dropFirst() where !knownColumns.contains(name) && !replayColumns.contains(name) {
                    report.add(SummaryDiagnostic(kind: .csvUnknownColumn, row: lineNumber, column: name, message:
                        "line \(lineNumber): column '\(name)' is not a known key and is ignored; known keys are \(knownColumns.joined(separator: ", "))"))
                }
                guard names.dropFirst().contains(where: knownColumns.contains) else { throw .noKnownColumns(header: names) }
                header = names
                continue
            }
            guard let first = cells.first, let stamp = Int64(first) ?? Double(first).flatMap(Int64.init(exactly:)),
                  stamp >= 100_000_000_000, stamp < 100_000_000_000_000 else {
                report.add(SummaryDiagnostic(kind: .csvBadRow, row: lineNumber, column: columns.first, message:
                    "line \(lineNumber): timestamp '\(cells.first ?? "")' is not Unix milliseconds (13 digits): the row was skipped; write the time as milliseconds since 1970"))
                continue
            }
            if cells.count < columns.count {
                report.add(SummaryDiagnostic(kind: .csvMissingCell, time: stamp / 1000, row: lineNumber, column: columns[cells.count], message:
                    "line \(lineNumber): \(cells.count) cells for \(columns.count) columns, '\(columns[cells.count])' onwards missing: they were read as empty; check the separator and quoting"))
            } else if cells.count > columns.count {
                report.add(SummaryDiagnostic(kind: .csvExtraCells, time: stamp / 1000, row: lineNumber, message:
                    "line \(lineNumber): \(cells.count) cells for \(columns.count) columns: the extra cells were ignored; check the separator and quoting"))
            }
            var values: [String: Double] = [:]
            for (index, name) in columns.enumerated().dropFirst() where index < cells.count {
                let cell = cells[index]
                guard !cell.isEmpty, let range = ranges[name] else { continue }
                guard let value = Double(cell), value.isFinite, range.contains(value),
                      decimalColumns.contains(name) || value == value.rounded() else {
                    report.add(SummaryDiagnostic(kind: .csvBadCell, time: stamp / 1000, row: lineNumber, column: name, message:
                        "line \(lineNumber), column '\(name)': '\(cell)' is not \(decimalColumns.contains(name) ? "a number" : "a whole number") in \(Int(range.lowerBound))...\(Int(range.upperBound)): read as empty, the rest of the row was used"))
                    continue
                }
                values[name] = value
            }
            let kind = columns.firstIndex(of: "kind").flatMap { $0 < cells.count ? cells[$0] : nil }
            rows.append((lineNumber, stamp, values, kind == "rr" && values["rr_ms"] == nil))
        }
        guard header != nil else { throw .empty }

        let slotRows = rows.filter { $0.values.keys.contains { $0 != "rr_ms" } }
        var interval: Int32?
        if let given = intervalSeconds {
            guard (1...3600).contains(given) else { throw .badInterval(given) }
            interval = Int32(given)
        } else if !slotRows.isEmpty {
            interval = try inferInterval(slotRows.map(\.timeMs))
        }
        var slots: [Slot] = []
        var beats: [Beat] = []
        for row in rows {
            if let rr = row.values["rr_ms"] { beats.append(Beat(timeMs: row.timeMs, rrMs: Int(rr))) } else if row.gapBeat { beats.append(Beat(timeMs: row.timeMs, rrMs: nil)) }
            guard let interval, row.values.keys.contains(where: { $0 != "rr_ms" }) else { continue }
            slots.append(makeSlot(start: row.timeMs / 1000, interval: interval, values: row.values))
        }
        return CSVSampleInput(slots: slots, beats: beats, intervalSeconds: interval, diagnostics: report.diagnostics)
    }

    private static func inferInterval(_ times: [Int64]) throws(CSVInputError) -> Int32 {
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

    private static func makeSlot(start: Int64, interval: Int32, values: [String: Double]) -> Slot {
        func int(_ key: String) -> Int? { values[key].map { Int($0) } }
        var slot = Slot(start: start, intervalSeconds: interval)
        slot.bpm = int("bpm"); slot.bpmQuality = int("bpm_q")
        slot.breath = values["breath"]; slot.breathQuality = int("breath_q")
        slot.steps = int("steps"); slot.activity = int("activity"); slot.speed = values["speed"]
        slot.energyCal = int("energy_cal"); slot.activeCal = int("active_cal")
        slot.skinTempC = values["skin_temp_c"]; slot.coreTempC = values["core_temp_c"]
        slot.spo2 = int("spo2"); slot.spo2Quality = int("spo2_q"); slot.edaMicrosiemens = values["eda_us"]
        slot.sleepStage = int("sleep_stage"); slot.wearing = int("wearing"); slot.battery = int("battery")
        return slot
    }
}
