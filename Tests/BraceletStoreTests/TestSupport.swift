import BraceletDecoder
import Foundation
import Glibc
import Testing
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

/// Overwrites `bytes` at `offset` of the database file and, with `resealing`, gives the page its
/// checksum again: a change made as if through SQLite, which only the row checks and content
/// hashes can see. Without it, the change is damage on disk that the page checksum finds. Either
/// way the file keeps its modification time, as when the disk changes it: a program that writes
/// changes the time, and bracelet then names the change a write from outside.
func overwrite(_ path: String, at offset: UInt64, with bytes: [UInt8], resealing: Bool) throws {
    var status = stat()
    #expect(stat(path, &status) == 0)
    defer {
        var times = [status.st_atim, status.st_mtim]
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
    }
    var file = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    file.replaceSubrange(Int(offset)..<(Int(offset) + bytes.count), with: bytes)
    if resealing {
        let size = 4096, start = Int(offset) / size * size
        let sum = PageChecksums.checksum(of: Array(file[start..<(start + size)]))
        for i in 0..<8 { file[start + size - 8 + i] = UInt8(truncatingIfNeeded: sum >> (8 * UInt64(i))) }
    }
    try Data(file).write(to: URL(fileURLWithPath: path))
}

/// The UTC hour (Unix milliseconds) ``databaseWithAFullBeatHour(_:)`` fills with beats.
let fullBeatHour: Int64 = 1_774_742_400_000

/// Beat 800 of that hour as stored: 720,000 ms into the hour, then its RR interval (900 ms), both
/// little-endian 24-bit.
let beat800: [UInt8] = [0x80, 0xFC, 0x0A, 0x84, 0x03, 0x00]

/// A checkpointed database holding 1,000 beats of SN1 in ``fullBeatHour``: a 6 KB chunk, most of it
/// on overflow pages of the main file. Returns its path.
func databaseWithAFullBeatHour(_ folder: TemporaryFolder) throws -> String {
    let path = folder.path("b.db")
    let store = try Store(path: path, now: fixedClock)
    _ = try store.insertBeats((0..<1_000).map { Beat(timeMs: fullBeatHour + Int64($0) * 900, rrMs: 900) }, device: "SN1", model: .v1)
    try store.locked { try $0.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
    return path
}
