import CHeapTuning

/// Tunes the heap for `ingest`, which writes a whole capture in one transaction: freed blocks of up
/// to 32 MiB stay on the heap for reuse instead of being unmapped, which saves page faults (30-day V2
/// ingest: 74k -> 53-60k faults, 0.81 -> 0.77 s CPU). It is not the process default because it raises
/// the peak of a long streaming read: `summarize` of a 1-year capture peaks at 71 MB with it, 63 MB
/// without. A glibc that refuses the settings only costs the faults, so the result is not an error.
func keepFreedHeapForWrites() {
    _ = bracelet_keep_freed_heap()
}

/// Bounds the heap for the commands whose peak must not grow with the history (`listen`,
/// `recompute`, the gateway): one malloc arena for all threads and free heap trimmed above 8 MiB.
/// Without the single arena every thread that allocates while another holds an arena gets one of
/// its own (up to 8 per core), each keeping what was freed in it: the gateway, whose syncs each run
/// on a thread of their own, grew to 77 MiB over 4 simulated days with 5 bracelets (31 MiB with two
/// arenas). A V2 backfill
/// peaked at 119 MB (30 days) without it and at 85 MB (30 days) and 92 MB (400 days) with it
/// (docs/footprint.md). Keeping large blocks on the heap as `ingest` does (fewer page faults)
/// raised the 400-day peak to 115 MB. A glibc that refuses the settings only costs memory.
func boundHeapForBackfill() {
    _ = bracelet_bound_heap()
}
