import BraceletDecoder
import Foundation
import Testing
@testable import BraceletStore

@Test func transferResumesAfterReopenAndEraseWaitsForTheLastByte() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("a.db")
    do {
        let store = try Store(path: path)
        let begun = try store.beginTransfer(device: "SN1", model: .v1, fileKind: "hrm", sealedSize: 1_000, crc: 0xBEEF)
        #expect(begun.committed == 0)
        #expect(begun.state == .receiving)
        let chunk = try store.commitTransferChunk(device: "SN1", fileKind: "hrm", offset: 0, byteCount: 400,
                                                  slots: [sampleSlot(start: 60), sampleSlot(start: 120)], beats: [])
        #expect(chunk.progress.committed == 400)
        #expect(chunk.slots.inserted == 2)
        #expect(throws: StoreError.eraseBeforeCommit(device: "SN1", fileKind: "hrm", committed: 400, sealedSize: 1_000)) {
            try store.markErased(device: "SN1", fileKind: "hrm")
        }
        #expect(throws: StoreError.transferOutOfOrder(device: "SN1", fileKind: "hrm", expectedOffset: 400, gotOffset: 500)) {
            try store.commitTransferChunk(device: "SN1", fileKind: "hrm", offset: 500, byteCount: 100, slots: [], beats: [])
        }
    }
    // The process died; a new one asks the bracelet again and resumes where the commit ended.
    let store = try Store(path: path)
    let resumed = try store.beginTransfer(device: "SN1", model: .v1, fileKind: "hrm", sealedSize: 1_000, crc: 0xBEEF)
    #expect(resumed.resumeOffset == 400)
    // A chunk running past the sealed size is refused and its slots are NOT stored.
    #expect(throws: StoreError.transferOverrun(device: "SN1", fileKind: "hrm", sealedSize: 1_000, endOffset: 1_001)) {
        try store.commitTransferChunk(device: "SN1", fileKind: "hrm", offset: 400, byteCount: 601,
                                      slots: [sampleSlot(start: 180)], beats: [])
    }
    #expect(try store.slots(device: "SN1", from: 0, to: .max).count == 2)
    let done = try store.commitTransferChunk(device: "SN1", fileKind: "hrm", offset: 400, byteCount: 600,
                                             slots: [sampleSlot(start: 180)], beats: [Beat(timeMs: 180_500, rrMs: nil)])
    #expect(done.progress.state == .committed)
    #expect(done.beats.inserted == 1)
    #expect(try store.markErased(device: "SN1", fileKind: "hrm").state == .erased)
    // The next file of the same kind starts from 0.
    let next = try store.beginTransfer(device: "SN1", model: .v1, fileKind: "hrm", sealedSize: 336, crc: nil)
    #expect(next.committed == 0)
    #expect(next.state == .receiving)
}

@Test func aChangedFileRestartsTheTransfer() throws {
    let folder = try TemporaryFolder()
    let store = try Store(path: folder.path("a.db"))
    _ = try store.beginTransfer(device: "SN1", model: .v2, fileKind: "activity", sealedSize: 800, crc: 1)
    _ = try store.commitTransferChunk(device: "SN1", fileKind: "activity", offset: 0, byteCount: 300, slots: [], beats: [])
    // Grown file (appended): resume.
    #expect(try store.beginTransfer(device: "SN1", model: .v2, fileKind: "activity", sealedSize: 900, crc: 2).committed == 300)
    // Same size, different CRC: content changed, restart.
    #expect(try store.beginTransfer(device: "SN1", model: .v2, fileKind: "activity", sealedSize: 900, crc: 3).committed == 0)
    _ = try store.commitTransferChunk(device: "SN1", fileKind: "activity", offset: 0, byteCount: 500, slots: [], beats: [])
    // Smaller than what we committed: the bracelet lost or erased it; restart.
    #expect(try store.beginTransfer(device: "SN1", model: .v2, fileKind: "activity", sealedSize: 200, crc: nil).committed == 0)
    #expect(throws: StoreError.noSuchTransfer(device: "SN1", fileKind: "sleep")) {
        try store.commitTransferChunk(device: "SN1", fileKind: "sleep", offset: 0, byteCount: 1, slots: [], beats: [])
    }
    // An empty file is committed at once, so it may be erased.
    #expect(try store.beginTransfer(device: "SN1", model: .v2, fileKind: "logs", sealedSize: 0, crc: nil).state == .committed)
    #expect(try store.markErased(device: "SN1", fileKind: "logs").state == .erased)
}
