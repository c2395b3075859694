import Testing
import BraceletCapture
import BraceletProtocol
import BraceletTransport

/// Test helper: bytes from a hex string such as "1B 03 00 ff"; white space is ignored.
func hex(_ s: String) -> [UInt8] {
    guard let parsed = bytes(fromHex: String(s.filter { !$0.isWhitespace })) else { fatalError("not hex: \(s)") }
    return parsed
}

/// 2026-11-21T00:00:00Z in Unix microseconds (`date -u -d 2026-11-21 +%s` = 1 795 219 200).
let t0: Int64 = 1_795_219_200_000_000

/// A 168-byte data-stream packet value: bytes 0, 1, 2, ... 167 plus `seed` (wrapping).
func streamValue(seed: UInt8) -> [UInt8] { (0..<168).map { UInt8(truncatingIfNeeded: $0) &+ seed } }

/// Every event of a capture, split by kind.
struct ReadBack {
    var att: [ATTEvent] = []
    var links: [LinkEvent] = []
    var faults: [CaptureFault] = []
    var order: [String] = []
    var statistics = CaptureStatistics()
}

func readBack(_ bytes: [UInt8]) throws -> ReadBack {
    let reader = try ATTCaptureReader(bytes: bytes)
    var it = reader.makeIterator()
    var out = ReadBack()
    while let e = it.next() {
        switch e {
        case .att(let a): out.att.append(a); out.order.append("att")
        case .connected(let l): out.links.append(l); out.order.append("up")
        case .disconnected(let l): out.links.append(l); out.order.append("down")
        case .fault(let f): out.faults.append(f); out.order.append("fault")
        }
    }
    out.statistics = it.statistics
    #expect(it.faults == out.faults)
    return out
}
