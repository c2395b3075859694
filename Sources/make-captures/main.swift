// make-captures: writes the bundled captures in captures/ from the physiological model.
//
// Usage: swift run -c release make-captures [OUTPUT_DIR]   (default: captures)
// See tools/make-captures.sh. Output is deterministic: the same build writes the same bytes.
import BraceletCapture
import BraceletDecoder
import BraceletProtocol
import BraceletSimulator
import Foundation

struct CaptureSpec {
    var fileName: String
    var scenario: PhysiologyScenario
    var datalink: BtsnoopDatalink
    var maxACLPayload: Int
    var faults = FirmwareFaults()
    /// Sync times as seconds before the end of the history (one session each).
    var syncs: [Int64]
    var note: String
}

func makeCapture(_ spec: CaptureSpec, into directory: String) throws {
    let model = try spec.scenario.makeModel()
    let windows = model.sleepPeriods.map { TimeSpan(start: $0.start, end: $0.end) }
    var firmware = SimulatedFirmware(history: model, beatWindows: windows, faults: spec.faults)
    if spec.faults.clockReset { firmware.faults.clockReset = false }
    let server = SimulatedGATTServer(firmware: firmware)
    let firstSync = (model.end - spec.syncs[0]) * 1_000_000
    var recorder = SessionRecorder(server: server, datalink: spec.datalink, maxACLPayload: spec.maxACLPayload,
                                   startMicros: firstSync)
    for (i, secondsBeforeEnd) in spec.syncs.enumerated() {
        let at = model.end - secondsBeforeEnd
        let offset = model.utcOffsetSeconds(at: at) / 60
        // The last session also streams two minutes of live heart rate after connecting.
        let live = i == spec.syncs.count - 1 ? model.beats(from: at + 1, to: at + 125) : []
        recorder.sync(atMicros: max(recorder.clock, at * 1_000_000), offsetMinutes: offset, liveBeats: live, liveSeconds: 120)
    }
    let path = directory + "/" + spec.fileName
    try CaptureFile.write(recorder.writer.bytes, to: path)
    let sealed = recorder.server.firmware.erasedBytes
    print("\(spec.fileName): \(recorder.writer.bytes.count) bytes, metrics \(sealed[.metrics] ?? 0) B and beats \(sealed[.beats] ?? 0) B transferred and erased; \(spec.note)")
    for line in recorder.log { print("  \(line)") }
}

var faulty = FirmwareFaults()
for fault in ["lose-packet:5", "lose-packet:41", "repeat-packet:12", "corrupt-crc:20", "drop-link-at:15000"] {
    try faulty.add(fault)
}

let specs = [
    CaptureSpec(fileName: "v1-day.btsnoop", scenario: .v1Day, datalink: .hciUART, maxACLPayload: 27,
                syncs: [300], note: "one day, Android H4 format, 27-byte ACL fragments"),
    CaptureSpec(fileName: "v2-three-days.btsnoop", scenario: .v2ThreeDays, datalink: .linuxMonitor, maxACLPayload: 251,
                syncs: [2 * 86_400 + 300, 86_400 + 300, 300], note: "three nightly syncs, btmon format"),
    CaptureSpec(fileName: "v2-daylight-saving.btsnoop", scenario: .v2DaylightSaving, datalink: .hciUART, maxACLPayload: 251,
                syncs: [52 * 3600, 36 * 3600, 300], note: "syncs before and after the DST change"),
    CaptureSpec(fileName: "v1-faulty-transfer.btsnoop", scenario: .v1Day, datalink: .hciUART, maxACLPayload: 27, faults: faulty,
                syncs: [300], note: "lost, repeated and corrupt packets, a link drop and the resumed transfer"),
]

let directory = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "captures"
do {
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    for spec in specs { try makeCapture(spec, into: directory) }
} catch {
    FileHandle.standardError.write(Data("make-captures: \(error)\n".utf8))
    exit(1)
}
