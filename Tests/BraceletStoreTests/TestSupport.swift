import BraceletDecoder
import Foundation
@testable import BraceletStore

/// A fresh temporary folder per test, removed when the value is released.
final class TemporaryFolder {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("bracelet-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String {
        url.appendingPathComponent(name).path
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}

/// A slot with a few fields set, the rest nil.
func sampleSlot(start: Int64, bpm: Int? = 62, steps: Int? = nil) -> Slot {
    var slot = Slot(start: start, intervalSeconds: 60)
    slot.bpm = bpm
    slot.bpmQuality = bpm == nil ? nil : 4
    slot.steps = steps
    return slot
}

/// A fixed clock the tests can read.
let fixedClock: @Sendable () -> Int64 = { 1_700_000_000_000 }
