import CHeapTuning

// The heap of the commands whose peak must not grow with the history (`listen`, `ingest`,
// `recompute`, `gateway run`) is bounded before `main`, by a constructor in CHeapTuning that reads
// the command line: one malloc arena for all threads and free heap trimmed above 8 MiB. Without the
// single arena every thread that allocates while another holds an arena gets one of its own (up to
// 8 per core), each keeping what was freed in it. A V2 backfill peaked at 119 MB (30 days) without
// it and at 85 MB (30 days) and 92 MB (400 days) with it (docs/footprint.md). Keeping freed blocks
// of up to 32 MiB on the heap instead (fewer page faults) raised the 400-day peak to 115 MB; blocks
// up to 4 MiB are taken from the heap by `listen`, `ingest` and `recompute` (one backfill at a time,
// a fifth less CPU, 1-3 MB more at the peak), not by the gateway, which runs several. It
// cannot be set in a command's `run()`: glibc applies the arena cap only to arenas made after it,
// and by then the concurrency runtime's threads have allocated, each with an arena of its own (the
// gateway's five-bracelet soak then ran on three arenas and grew from 17.6 to 26.4 MiB of anonymous
// memory over 5 simulated days). A glibc that refuses the settings only costs memory.

/// Gives the heap freed since the last call back to the system (`malloc_trim`): whole free pages
/// inside the heap, and its top above no threshold. For a service whose work comes in bursts (a
/// gateway's syncs) between which it idles: without it the heap kept the high-water mark of the
/// bursts, fragmented, and grew with the run.
func releaseFreeHeap() {
    _ = bracelet_release_free_heap()
}
