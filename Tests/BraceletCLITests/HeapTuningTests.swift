import CHeapTuning
import Glibc
import Testing

@testable import BraceletCLI

/// `ingest` and `listen` keep freed blocks of up to 32 MiB on the heap: such a block must then come
/// from the heap, not from a mapping of its own that is unmapped again on free (and faulted in afresh
/// next time).
@Suite struct HeapTuningTests {
    @Test func blocksUpTo32MiBComeFromTheHeapOnceTuned() throws {
        #expect(bracelet_keep_freed_heap() == 1)
        keepFreedHeapForWrites()
        let before = bracelet_separately_mapped_bytes()
        let size = 24 << 20
        let block = try #require(malloc(size))
        memset(block, 1, size)
        let during = bracelet_separately_mapped_bytes()
        free(block)
        #expect(during == before, "a 24 MiB block was mapped on its own: \(during - before) bytes")
        // Above the threshold glibc still maps on its own, so the measure itself is live.
        let large = try #require(malloc(40 << 20))
        #expect(bracelet_separately_mapped_bytes() >= before + (40 << 20))
        free(large)
    }
}
