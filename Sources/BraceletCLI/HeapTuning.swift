import CHeapTuning

/// Bounds the heap for the commands whose peak must not grow with the history (`listen`, `ingest`,
/// `recompute`, the gateway): one malloc arena for all threads and free heap trimmed above 8 MiB.
/// Without the single arena every thread that allocates while another holds an arena gets one of
/// its own (up to 8 per core), each keeping what was freed in it: the gateway, whose syncs each run
/// on a thread of their own, grew to 77 MiB over 4 simulated days with 5 bracelets (31 MiB with two
/// arenas). A V2 backfill
/// peaked at 119 MB (30 days) without it and at 85 MB (30 days) and 92 MB (400 days) with it
/// (docs/footprint.md). Keeping freed blocks of up to 32 MiB on the heap instead (fewer page
/// faults, what `ingest` did while it wrote a whole capture in one transaction) raised the 400-day
/// peak to 115 MB. A glibc that refuses the settings only costs memory.
func boundHeapForBackfill() {
    _ = bracelet_bound_heap()
}
