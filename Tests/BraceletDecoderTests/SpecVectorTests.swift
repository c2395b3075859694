import Foundation
import Testing
import BraceletProtocol
@testable import BraceletDecoder

/// One ```vector block of protocol-specs/test-vectors.md.
struct SpecVector: CustomTestStringConvertible, Sendable {
    var kind: String
    var name: String
    var bytes: [UInt8]
    var decoded: String
    var testDescription: String { "\(kind): \(name)" }

    static let all: [SpecVector] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("protocol-specs/test-vectors.md")
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return [] }
        var vectors: [SpecVector] = []
        for block in text.components(separatedBy: "```vector\n").dropFirst() {
            var fields: [String: String] = [:]
            for line in block.components(separatedBy: "```")[0].split(separator: "\n") {
                guard let colon = line.firstIndex(of: ":") else { continue }
                fields[String(line[..<colon])] = String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
            }
            vectors.append(SpecVector(kind: fields["kind"] ?? "", name: fields["name"] ?? "",
                                      bytes: BraceletProtocol.bytes(fromHex: fields["hex"] ?? "") ?? [],
                                      decoded: fields["decoded"] ?? ""))
        }
        return vectors
    }()
}

/// Canonical text of decoded values, in the spec's field names.
enum Canonical {
    static func number(_ value: Double?) -> String {
        guard let value else { return "none" }
        return value == value.rounded() ? String(Int(value)) : String(value)
    }
    static func int(_ value: Int?) -> String { value.map(String.init) ?? "none" }


    static func command(_ c: Command) -> String {
        switch c {
        case let .setTime(s, tz): "set_time unix_seconds=\(s) tz_offset_min=\(tz)"
        case let .setPlan(p): "set_plan plan=\(p.rawValue)"
        case .status: "status"
        case let .fileSize(k): "file_size kind=\(k)"
        case let .readFile(k, o, l): "read_file kind=\(k) offset=\(o) length=\(l)"
        case let .eraseFile(k, s): "erase_file kind=\(k) size=\(s)"
        case let .queueStatus(k): "queue_status kind=\(k)"
        }
    }

    static func errorName(_ code: DeviceErrorCode) -> String {
        switch code {
        case .badCRC: "bad_crc"
        case .unknownCommand: "unknown_command"
        case .badParameter: "bad_parameter"
        case .busy: "busy"
        case .offsetOutOfRange: "offset_out_of_range"
        case .eraseSizeMismatch: "erase_size_mismatch"
        case .timeNotSet: "time_not_set"
        case .fileNotActive: "file_not_active"
        case .storageFailure: "storage_failure"
        }
    }

    static func response(_ r: Response) -> String {
        switch r {
        case .timeSet: "time_set"
        case let .planSet(p): "plan_set plan=\(p.rawValue)"
        case let .status(s): "status wearing=\(s.wearing) mode=\(s.mode) battery=\(s.batteryPercent) charging=\(s.isCharging) idle=\(s.idleState)"
        case let .fileSize(size, used): "file_size size=\(size) storage_used=\(used)"
        case let .readAccepted(length, packets): "read_accepted length=\(length) packets=\(packets)"
        case let .erased(size, used): "erased size=\(size) storage_used=\(used)"
        case let .queueStatus(files, kib): "queue_status files=\(files) kib=\(kib)"
        case let .error(command, code, detail): "error command=0x\(hexString([command])) code=\(errorName(code)) detail=\(detail)"
        }
    }

    static func slot(_ s: Slot, model: DeviceModel, flags: SlotFields) -> String {
        var parts = [
            "bpm=\(int(s.bpm))", "bpm_q=\(int(s.bpmQuality))", "breath=\(number(s.breath))", "breath_q=\(int(s.breathQuality))",
            "activity=\(int(s.activity))", "steps=\(int(s.steps))", "speed=\(number(s.speed))", "skin_temp_c=\(number(s.skinTempC))",
            "energy_cal=\(int(s.energyCal))", "active_cal=\(int(s.activeCal))", "wearing=\(int(s.wearing))",
            "sleep_stage=\(int(s.sleepStage))", "battery=\(int(s.battery))",
        ]
        if model == .v2 {
            parts += ["spo2=\(int(s.spo2))", "spo2_q=\(int(s.spo2Quality))", "core_temp_c=\(number(s.coreTempC))", "eda_us=\(number(s.edaMicrosiemens))"]
        }
        if !flags.isEmpty { parts.append("out_of_range=" + flags.names.joined(separator: ",")) }
        return parts.joined(separator: " ")
    }

    static func header(_ h: FileHeader) -> String {
        "header kind=\(h.kind) version=\(h.version) model=\(h.model) record_size=\(h.recordSize) serial=\(h.serial) base=\(h.baseTime) tz_offset_min=\(h.timeZoneOffsetMinutes) interval_s=\(h.intervalSeconds) records=\(h.recordCount)"
    }
}

@Test func specHasVectorsOfEveryKind() {
    let kinds = Set(SpecVector.all.map(\.kind))
    #expect(kinds == ["crc8", "crc16", "crc32", "command", "response", "packet", "header", "record-v1", "record-v2", "record-beats", "file"])
}

@Test(arguments: SpecVector.all)
func specVectorDecodesAndReencodes(_ v: SpecVector) throws {
    switch v.kind {
    case "crc8":
        #expect("crc=0x" + hexString([CRC8.checksum(v.bytes)]) == v.decoded)
    case "crc16":
        let c = CRC16.checksum(v.bytes)
        #expect("crc=0x" + hexString([UInt8(c >> 8), UInt8(c & 0xFF)]) == v.decoded)
    case "crc32":
        #expect(v.decoded == "crc=0x" + String(CRC32.checksum(v.bytes), radix: 16))
    case "command":
        let command = try Command(frame: v.bytes)
        #expect(Canonical.command(command) == v.decoded)
        #expect(command.encode() == v.bytes)
    case "response":
        let response = try Response(frame: v.bytes)
        #expect(Canonical.response(response) == v.decoded)
        #expect(response.encode() == v.bytes)
    case "packet" where v.decoded.hasPrefix("rejected "):
        // A corrupt packet whose CRC matches: the vector names the header field that gives it away.
        let field = v.decoded.dropFirst("rejected ".count).split(separator: "=")
        let name = field[0].replacingOccurrences(of: "_", with: " ")
        let value = try #require(Int(field[1]))
        #expect(throws: FrameError.packetField(name: name, value: value)) { try DataPacket(bytes: v.bytes) }
    case "packet":
        let packet = try DataPacket(bytes: v.bytes)
        #expect("packet seq=\(packet.sequence) offset=\(packet.offset) length=\(packet.payload.count) last=\(packet.isLast)" == v.decoded)
        #expect(packet.encode() == v.bytes)
    case "header":
        let header = try v.bytes.withUnsafeBytes { try FileHeader(bytes: $0) }
        #expect(Canonical.header(header) == v.decoded)
        #expect(header.encode() == v.bytes)
    case "record-v1", "record-v2":
        let model: DeviceModel = v.kind == "record-v1" ? .v1 : .v2
        let columns = MetricsColumns(capacity: 4)
        v.bytes.withUnsafeBytes { _ = MetricsDecoder(model: model, intervalSeconds: 60).decode($0, firstStart: 0, into: columns) }
        #expect(columns.count == 1)
        let slot = columns.slot(at: 0)
        #expect(Canonical.slot(slot, model: model, flags: columns.outOfRange(at: 0)) == v.decoded)
        var again: [UInt8] = []
        try MetricsRecordEncoder(model: model).append(slot, to: &again)
        #expect(again == v.bytes)
    case "record-beats":
        var beats: [Beat] = []
        v.bytes.withUnsafeBytes { BeatsCodec.decode($0, baseTime: 0, into: &beats) }
        #expect(beats.count == 1)
        #expect("time_ms=\(beats[0].timeMs) rr_ms=\(Canonical.int(beats[0].rrMs))" == v.decoded)
    case "file":
        var slots: [Slot] = []
        let summary = try v.bytes.withUnsafeBytes { raw in
            try FileDecoder.decodeMetrics(raw, columns: MetricsColumns(capacity: 1)) { c in slots.append(c.slot(at: 0)) }
        }
        #expect(summary.faults.isEmpty)
        let crc: UInt32 = v.bytes.readLittleEndian(at: v.bytes.count - 4)!
        #expect("file kind=\(summary.header.kind) model=\(summary.header.model) records=\(slots.count) crc=0x\(hexString(withUnsafeBytes(of: crc.bigEndian, Array.init)))" == v.decoded)
        let rebuilt = try MetricsRecordEncoder(model: summary.header.model).sealedFile(
            serial: summary.header.serial, timeZoneOffsetMinutes: summary.header.timeZoneOffsetMinutes,
            intervalSeconds: summary.header.intervalSeconds, firstStart: summary.header.baseTime, slots: slots)
        #expect(rebuilt == v.bytes)
    default:
        Issue.record("unknown vector kind \(v.kind)")
    }
}
