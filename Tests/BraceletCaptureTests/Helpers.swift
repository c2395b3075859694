import Testing
import BraceletCapture
import BraceletTransport

/// Test helper: bytes from a hex string such as "1B 03 00 ff"; spaces are ignored.
func hex(_ s: String) -> [UInt8] {
    let digits = s.filter { !$0.isWhitespace }
    var out: [UInt8] = []
    var i = digits.startIndex
    while i < digits.endIndex {
        let j = digits.index(after: i)
        out.append(UInt8(digits[i...j], radix: 16)!)
        i = digits.index(after: j)
    }
    return out
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
