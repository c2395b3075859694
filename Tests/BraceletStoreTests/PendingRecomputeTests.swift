import Testing
@testable import BraceletStore

/// The days waiting to be recomputed are rows of the file: committed with the rows that touched
/// them, there after a reopen (a process killed before recomputing), gone once cleared.
@Suite struct PendingRecomputeTests {
    @Test func pendingDaysCommitWithTheirRowsAndOutliveTheProcess() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("pending.db")
        do {
            let store = try Store(path: path, now: fixedClock)
            try store.transaction {
                _ = try store.insertSlots([sampleSlot(start: 1_780_000_000)], device: "SN2", model: .v2)
                try store.markForRecompute(device: "SN2", dates: ["2026-05-28", "2026-05-29"])
                try store.markForRecompute(device: "SN2", dates: ["2026-05-28"])  // a second file, same day
                try store.markForRecompute(device: "SN1", dates: ["2026-05-27"])
            }
            // A transaction that fails takes its records with it.
            struct Refused: Error {}
            #expect(throws: Refused.self) {
                try store.transaction {
                    try store.markForRecompute(device: "SN2", dates: ["2026-05-30"])
                    throw Refused()
                }
            }
        }
        let reopened = try Store(path: path, now: fixedClock)
        let pending = try reopened.pendingRecompute()
        #expect(pending.map(\.device) == ["SN1", "SN2"])
        #expect(pending.map(\.dates) == [["2026-05-27"], ["2026-05-28", "2026-05-29"]])

        try reopened.clearPendingRecompute(device: "SN2", dates: ["2026-05-28"])
        try reopened.clearPendingRecompute(device: "SN9", dates: ["2026-05-28"])  // unknown device: nothing to clear
        #expect(try reopened.pendingRecompute().map(\.dates) == [["2026-05-27"], ["2026-05-29"]])
    }
}
