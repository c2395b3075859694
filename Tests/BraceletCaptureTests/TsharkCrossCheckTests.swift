import Foundation
import BraceletProtocol
import Testing
import BraceletCapture
import BraceletTransport

private let tsharkPath = "/usr/bin/tshark"

/// Runs tshark on a file and returns its stdout lines, or records an issue and returns [] if it fails.
private func tsharkFields(_ path: String) throws -> [String] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: tsharkPath)
    process.arguments = ["-r", path, "-Y", "btatt", "-T", "fields",
                         "-e", "btatt.opcode", "-e", "btatt.handle", "-e", "btatt.value"]
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    if process.terminationStatus != 0 {
        Issue.record("tshark exited \(process.terminationStatus): \(String(decoding: errData, as: UTF8.self))")
    }
    return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
}

private func hexLower(_ bytes: [UInt8]) -> String {
    hexString(bytes)
}

/// Wireshark is an independent dissector: if it finds the same notifications (opcode, handle and
/// value) in what we wrote, our H4 / monitor framing, ACL fragmentation and L2CAP headers are right.
@Suite struct TsharkCrossCheckTests {
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: tsharkPath), "tshark is not installed at /usr/bin/tshark"),
          arguments: [BtsnoopDatalink.hciUART, .linuxMonitor])
    func tsharkDissectsTheNotificationsWeWrote(_ datalink: BtsnoopDatalink) throws {
        var w = ATTCaptureWriter(datalink: datalink, reportsCompletedPackets: true)
        w.connect(unixMicros: t0)
        w.append(.exchangeMTURequest(clientRxMTU: 247), direction: .sent, unixMicros: t0 + 1_000)
        w.append(.exchangeMTUResponse(serverRxMTU: 185), direction: .received, unixMicros: t0 + 2_000)
        w.append(.writeRequest(handle: 0x0010, value: [0x01, 0x00]), direction: .sent, unixMicros: t0 + 3_000)
        w.append(.writeResponse, direction: .received, unixMicros: t0 + 4_000)
        var expected: [String] = []
        for seed in UInt8(0)..<3 {
            let value = streamValue(seed: seed &* 50)
            w.append(.handleValueNotification(handle: 0x000E, value: value), direction: .received,
                     unixMicros: t0 + 5_000 + Int64(seed) * 1_000)
            expected.append("0x1b\t0x000e\t" + hexLower(value))
        }
        w.disconnect(unixMicros: t0 + 9_000)
        w.connect(unixMicros: t0 + 10_000)
        let hr: [UInt8] = [0x16, 0x48, 0x00, 0x04]
        w.append(.handleValueNotification(handle: 0x0003, value: hr), direction: .received, unixMicros: t0 + 11_000)
        expected.append("0x1b\t0x0003\t" + hexLower(hr))

        let path = NSTemporaryDirectory() + "bracelet-tshark-\(datalink.rawValue)-\(UUID().uuidString).btsnoop"
        try CaptureFile.write(w.bytes, to: path)
        defer { try? FileManager.default.removeItem(atPath: path) }

        let lines = try tsharkFields(path)
        let notifications = lines.filter { $0.hasPrefix("0x1b\t") }
        #expect(notifications == expected, "tshark output:\n\(lines.joined(separator: "\n"))")
        // MTU request, MTU response, write request, write response, 4 notifications.
        #expect(lines.count == 8, "tshark output:\n\(lines.joined(separator: "\n"))")

        // And our own reader agrees with tshark on the same file.
        let ours = try readBack(try CaptureFile.read(path: path)).att.compactMap { event -> String? in
            guard case .handleValueNotification(let handle, let value) = try? event.decode() else { return nil }
            return "0x1b\t" + String(format: "0x%04x", handle) + "\t" + hexLower(value)
        }
        #expect(ours == expected)
    }
}
