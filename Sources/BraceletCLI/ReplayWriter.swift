import BraceletCapture
import BraceletDecoder
import BraceletProtocol

/// Formats replayed records as JSON Lines, CSV or a table.
struct ReplayWriter {
    let format: ReplayFormat
    let out: TextOutput

    static let slotKeys = ["t", "device", "model", "interval_s", "bpm", "bpm_q", "breath", "breath_q", "steps", "activity",
                           "speed", "energy_cal", "active_cal", "skin_temp_c", "core_temp_c", "spo2", "spo2_q", "eda_us",
                           "sleep_stage", "wearing", "battery"]

    func begin() {
        switch format {
        case .csv: out.write("kind," + Self.slotKeys.joined(separator: ",") + ",rr_ms,out_of_range\n")
        case .table:
            out.write("t                     device    bpm  q  breath q  steps act  speed skin°C core°C spo2 q  eda µS stage wear batt\n")
        case .jsonl: break
        }
    }

    func end() {}

    /// JSON / CSV text of an optional number; `null` (JSON) or empty (CSV) when absent.
    func value(_ v: Int?) -> String { v.map(String.init) ?? (format == .csv ? "" : "null") }
    func value(_ v: Double?) -> String { v.map { $0.description } ?? (format == .csv ? "" : "null") }

    func slot(_ s: Slot, serial: String, model: DeviceModel, outOfRange: SlotFields) {
        let t = UTCTime.iso8601(unixSeconds: s.start)
        let values = [value(s.bpm), value(s.bpmQuality), value(s.breath), value(s.breathQuality), value(s.steps), value(s.activity),
                      value(s.speed), value(s.energyCal), value(s.activeCal), value(s.skinTempC), value(s.coreTempC), value(s.spo2),
                      value(s.spo2Quality), value(s.edaMicrosiemens), value(s.sleepStage), value(s.wearing), value(s.battery)]
        switch format {
        case .jsonl:
            var line = "{\"kind\":\"slot\",\"t\":\"\(t)\",\"device\":\"\(jsonEscaped(serial))\",\"model\":\"\(model)\",\"interval_s\":\(s.intervalSeconds)"
            for (key, v) in zip(Self.slotKeys.dropFirst(4), values) { line += ",\"\(key)\":\(v)" }
            if !outOfRange.isEmpty { line += ",\"out_of_range\":[" + outOfRange.names.map { "\"\($0)\"" }.joined(separator: ",") + "]" }
            out.write(line + "}\n")
        case .csv:
            out.write("slot,\(t),\(csvEscaped(serial)),\(model),\(s.intervalSeconds)," + values.joined(separator: ",") + ",," + outOfRange.names.joined(separator: ";") + "\n")
        case .table:
            func col(_ v: String, _ width: Int) -> String {
                let text = v == "null" ? "-" : v
                return String(repeating: " ", count: max(0, width - text.count)) + text
            }
            let row = [col(value(s.bpm), 4), col(value(s.bpmQuality), 2), col(value(s.breath), 7), col(value(s.breathQuality), 2),
                       col(value(s.steps), 6), col(value(s.activity), 4), col(value(s.speed), 6), col(value(s.skinTempC), 6),
                       col(value(s.coreTempC), 6), col(value(s.spo2), 4), col(value(s.spo2Quality), 2), col(value(s.edaMicrosiemens), 7),
                       col(value(s.sleepStage), 5), col(value(s.wearing), 4), col(value(s.battery), 4)]
            out.write("\(t)  \(serial.padding(8)) " + row.joined(separator: " ") + (outOfRange.isEmpty ? "" : "  out of range: " + outOfRange.names.joined(separator: ",")) + "\n")
        }
    }

    func beat(_ b: Beat, serial: String, model: DeviceModel) {
        let t = UTCTime.iso8601(unixMilliseconds: b.timeMs)
        switch format {
        case .jsonl:
            out.write("{\"kind\":\"rr\",\"t\":\"\(t)\",\"device\":\"\(jsonEscaped(serial))\",\"model\":\"\(model)\",\"rr_ms\":\(value(b.rrMs))}\n")
        case .csv:
            // kind, t, device and model are filled; the other slot columns stay empty up to rr_ms.
            out.write("rr,\(t),\(csvEscaped(serial)),\(model)" + String(repeating: ",", count: Self.slotKeys.count - 2) + "\(value(b.rrMs)),\n")
        case .table:
            out.write("\(t)  \(serial.padding(8)) rr \(b.rrMs.map { "\($0) ms" } ?? "- (first beat after a gap)")\n")
        }
    }

    func heartRate(_ hr: CapturedHeartRate) {
        let t = UTCTime.iso8601(unixMilliseconds: hr.timestampMicros / 1000)
        let rr = hr.measurement.rrMilliseconds
        switch format {
        case .jsonl:
            out.write(HeartRateSampleLine.string(hr.measurement, unixMilliseconds: hr.timestampMicros / 1000))
        case .csv:
            let bpmColumn = Self.slotKeys.firstIndex(of: "bpm")!
            var cells = [String](repeating: "", count: Self.slotKeys.count)
            cells[0] = t
            cells[bpmColumn] = String(hr.measurement.bpm)
            out.write("hr," + cells.joined(separator: ",") + "," + rr.map(String.init).joined(separator: ";") + ",\n")
        case .table:
            out.write("\(t)  live     hr \(hr.measurement.bpm) bpm, rr " + rr.map(String.init).joined(separator: " ") + " ms\n")
        }
    }
}

extension String {
    func padding(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}

/// Escapes a string for inclusion in JSON quotes.
func jsonEscaped(_ s: String) -> String {
    var out = ""
    for scalar in s.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        default:
            if scalar.value < 0x20 { out += "\\u00" + String(scalar.value, radix: 16).leftPadded(2) } else { out.unicodeScalars.append(scalar) }
        }
    }
    return out
}

extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}

/// Quotes a CSV cell when it holds a comma, quote or newline.
func csvEscaped(_ s: String) -> String {
    guard s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" }) else { return s }
    return "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
