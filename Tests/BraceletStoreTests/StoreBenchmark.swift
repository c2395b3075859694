import BraceletDecoder
import Foundation
import Testing
@testable import BraceletStore

/// Throughput of `insertSlots` into a file database (WAL, synchronous=FULL). Opt-in because it
/// writes ~100 MB: `BRACELET_BENCH=1 swift test -c release --filter insertThroughput`.
@Test(.enabled(if: ProcessInfo.processInfo.environment["BRACELET_BENCH"] == "1"))
func insertThroughput() throws {
    let folder = try TemporaryFolder()
    let store = try Store(path: folder.path("bench.db"))
    let count = Int(ProcessInfo.processInfo.environment["BRACELET_BENCH_SLOTS"] ?? "") ?? 1_000_000
    let base: Int64 = 1_700_000_000
    // Typical V2 slot: most fields set, two nil.
    let slots: [Slot] = (0..<count).map { index in
        var slot = Slot(start: base + Int64(index) * 60, intervalSeconds: 60)
        slot.bpm = 55 + index % 40
        slot.bpmQuality = 4
        slot.breath = 14.25
        slot.breathQuality = 3
        slot.steps = index % 7 == 0 ? nil : index % 120
        slot.activity = 2
        slot.speed = 1.1
        slot.energyCal = 1_400
        slot.activeCal = 300
        slot.skinTempC = 33.5
        slot.coreTempC = index % 3 == 0 ? nil : 36.8
        slot.spo2 = 97
        slot.spo2Quality = 4
        slot.edaMicrosiemens = 0.5
        slot.sleepStage = index % 5
        slot.wearing = 4
        slot.battery = 80
        return slot
    }
    let batch = 10_080 // one week of 60 s slots per call, like one transfer
    var start = Date()
    var inserted = 0
    for offset in stride(from: 0, to: count, by: batch) {
        inserted += try store.insertSlots(Array(slots[offset..<min(count, offset + batch)]), device: "BENCH", model: .v2).inserted
    }
    let insertSeconds = Date().timeIntervalSince(start)
    #expect(inserted == count)
    start = Date()
    var again = 0
    for offset in stride(from: 0, to: count, by: batch) {
        again += try store.insertSlots(Array(slots[offset..<min(count, offset + batch)]), device: "BENCH", model: .v2).alreadyPresent
    }
    let duplicateSeconds = Date().timeIntervalSince(start)
    #expect(again == count)
    start = Date()
    let back = try store.slots(device: "BENCH", from: base, to: base + Int64(count) * 60)
    let readSeconds = Date().timeIntervalSince(start)
    #expect(back.count == count)
    #expect(back[count / 2] == slots[count / 2])
    let size = (try? FileManager.default.attributesOfItem(atPath: folder.path("bench.db"))[.size] as? Int) ?? 0
    print(String(format: "insertSlots: %d slots in batches of %d: insert %.2f s = %.0f slots/s; re-insert (all present) %.2f s = %.0f slots/s; read back %.2f s = %.0f slots/s; file %.1f MB",
                 count, batch, insertSeconds, Double(count) / insertSeconds, duplicateSeconds, Double(count) / duplicateSeconds,
                 readSeconds, Double(count) / readSeconds, Double(size) / 1e6))
}
