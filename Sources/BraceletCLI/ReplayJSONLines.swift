import BraceletCapture
import BraceletDecoder
import BraceletProtocol

/// Writes the records of a replayed capture in one output format.
protocol ReplayRecordWriter {
    /// Writes what comes before the first record (a header row).
    func begin()
    /// Writes one slot.
    func slot(_ s: Slot, serial: String, model: DeviceModel, outOfRange: SlotFields)
    /// Writes one beat.
    func beat(_ b: Beat, serial: String, model: DeviceModel)
    /// Writes one live heart-rate notification.
    func heartRate(_ hr: CapturedHeartRate)
    /// Writes what comes after the last record.
    func end()
}

extension ReplayWriter: ReplayRecordWriter {}

/// Formats replay records as JSON Lines straight into bytes: a capture of a month has close to a
/// million records, and a `String` per value would make replay slower than the file's own reading.
/// The text is exactly what the key list in ``ReplayWriter/slotKeys`` and `description` of each
/// value give.
final class ReplayJSONLines: ReplayRecordWriter {
    private let out: TextOutput
    private var line: [UInt8] = []
    /// `","device":"SERIAL","model":"v2"` of the last device, reused while the device stays the same.
    private var deviceBytes: [UInt8] = []
    private var deviceKey: (serial: String, model: DeviceModel)?
    private static let slotKeyBytes: [[UInt8]] = ReplayWriter.slotKeys.dropFirst(4).map { Array(",\"\($0)\":".utf8) }

    init(out: TextOutput) {
        self.out = out
        line.reserveCapacity(512)
    }

    func begin() {}
    func end() {}

    private func device(_ serial: String, _ model: DeviceModel) {
        if let key = deviceKey, key.serial == serial, key.model == model { return }
        deviceKey = (serial, model)
        deviceBytes = Array("\",\"device\":\"\(jsonEscaped(serial))\",\"model\":\"\(model)\"".utf8)
    }

    private func value(_ v: Int?) {
        if let v { TextBytes.append(v, to: &line) } else { line.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C]) }
    }

    private func value(_ v: Double?) {
        if let v { TextBytes.append(v, to: &line) } else { line.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C]) }
    }

    /// Starts a line of a device's record: kind, time (`appendTime`), device and model.
    private func start(_ prefix: String, serial: String, model: DeviceModel, appendTime: (inout [UInt8]) -> Void) {
        device(serial, model)
        line.removeAll(keepingCapacity: true)
        line.append(contentsOf: prefix.utf8)
        appendTime(&line)
        line.append(contentsOf: deviceBytes)
    }

    func slot(_ s: Slot, serial: String, model: DeviceModel, outOfRange: SlotFields) {
        start("{\"kind\":\"slot\",\"t\":\"", serial: serial, model: model) { UTCTime.appendISO8601(unixSeconds: s.start, to: &$0) }
        line.append(contentsOf: ",\"interval_s\":".utf8)
        TextBytes.append(Int(s.intervalSeconds), to: &line)
        let keys = Self.slotKeyBytes
        line.append(contentsOf: keys[0]); value(s.bpm)
        line.append(contentsOf: keys[1]); value(s.bpmQuality)
        line.append(contentsOf: keys[2]); value(s.breath)
        line.append(contentsOf: keys[3]); value(s.breathQuality)
        line.append(contentsOf: keys[4]); value(s.steps)
        line.append(contentsOf: keys[5]); value(s.activity)
        line.append(contentsOf: keys[6]); value(s.speed)
        line.append(contentsOf: keys[7]); value(s.energyCal)
        line.append(contentsOf: keys[8]); value(s.activeCal)
        line.append(contentsOf: keys[9]); value(s.skinTempC)
        line.append(contentsOf: keys[10]); value(s.coreTempC)
        line.append(contentsOf: keys[11]); value(s.spo2)
        line.append(contentsOf: keys[12]); value(s.spo2Quality)
        line.append(contentsOf: keys[13]); value(s.edaMicrosiemens)
        line.append(contentsOf: keys[14]); value(s.sleepStage)
        line.append(contentsOf: keys[15]); value(s.wearing)
        line.append(contentsOf: keys[16]); value(s.battery)
        if !outOfRange.isEmpty {
            line.append(contentsOf: (",\"out_of_range\":[" + outOfRange.names.map { "\"\($0)\"" }.joined(separator: ",") + "]").utf8)
        }
        line.append(contentsOf: [0x7D, 0x0A])
        out.write(bytes: line)
    }

    func beat(_ b: Beat, serial: String, model: DeviceModel) {
        start("{\"kind\":\"rr\",\"t\":\"", serial: serial, model: model) { UTCTime.appendISO8601(unixMilliseconds: b.timeMs, to: &$0) }
        line.append(contentsOf: ",\"rr_ms\":".utf8)
        value(b.rrMs)
        line.append(contentsOf: [0x7D, 0x0A])
        out.write(bytes: line)
    }

    func heartRate(_ hr: CapturedHeartRate) {
        line.removeAll(keepingCapacity: true)
        HeartRateSampleLine.append(hr.measurement, unixMilliseconds: hr.timestampMicros / 1000, to: &line)
        out.write(bytes: line)
    }
}
