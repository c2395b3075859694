import Foundation
import Testing
import BraceletCapture

/// Rough replay throughput, run on demand only:
/// `BRACELET_BENCH=1 swift test --filter CaptureThroughput` (add `-c release -Xswiftc -enable-testing`
/// for a release number). Prints MB/s; asserts only that every notification came back.
/// With `BRACELET_BENCH_KEEP=/some/dir` the generated captures are kept there (e.g. to time
/// `tools/tshark-check.sh` on the same input).
@Suite(.serialized) struct CaptureThroughputTests {
    @Test(.enabled(if: ProcessInfo.processInfo.environment["BRACELET_BENCH"] != nil, "set BRACELET_BENCH=1 to measure"),
          arguments: [BtsnoopDatalink.hciUART, .linuxMonitor])
    func replayThroughputOn50MB(_ datalink: BtsnoopDatalink) throws {
        let notifications = 140_000  // 378 bytes each in 1002 (7 ACL records) -> ~53 MB
        var w = ATTCaptureWriter(datalink: datalink, reservingCapacity: 56 << 20)
        w.connect(unixMicros: t0)
        var value = streamValue(seed: 0)
        for i in 0..<notifications {
            value[0] = UInt8(truncatingIfNeeded: i)
            w.appendATT([0x1B, 0x0E, 0x00] + value, direction: .received, unixMicros: t0 + Int64(i) * 7_500)
        }
        let file = w.bytes
        if let dir = ProcessInfo.processInfo.environment["BRACELET_BENCH_KEEP"] {
            try CaptureFile.write(file, to: dir + "/throughput-\(datalink.rawValue).btsnoop")
        }
        let megabytes = Double(file.count) / 1_000_000

        let clock = ContinuousClock()
        var checksum = 0
        let plain = clock.measure {
            var s = 0
            for b in file { s &+= Int(b) }
            checksum &+= s
        }
        var recordCount = 0
        let records = clock.measure {
            for r in try! BtsnoopReader(bytes: file) { recordCount += 1; checksum &+= r.packet.count }
        }
        var pdus = 0
        var pduBytes = 0
        let att = try clock.measure {
            var it = try ATTCaptureReader(bytes: file).makeIterator()
            while let e = it.next() {
                if case .att(let a) = e { pdus += 1; pduBytes += a.pdu.count }
            }
        }
        func rate(_ d: Duration) -> String {
            let s = Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
            return String(format: "%.1f MB/s (%.3f s)", megabytes / s, s)
        }
        print("[throughput] datalink \(datalink.rawValue), \(String(format: "%.1f", megabytes)) MB, \(recordCount) records:"
              + " memory sum \(rate(plain)), btsnoop records \(rate(records)), ATT events \(rate(att)) [checksum \(checksum & 1)]")
        #expect(pdus == notifications)
        #expect(pduBytes == notifications * 171)
    }
}
