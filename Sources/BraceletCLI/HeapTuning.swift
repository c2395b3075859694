import CHeapTuning

/// Bounds the heap for the commands whose peak must not grow with the history (`listen`, `ingest`,
/// `recompute`, the gateway): one malloc arena for all threads and free heap trimmed above 8 MiB.
/// Without the single arena every thread that allocates while another holds an arena gets one of
/// its own (up to 8 per core), each keeping what was freed in it. A V2 backfill
/// peaked at 119 MB (30 days) without it and at 85 MB (30 days) and 92 MB (400 days) with it
/// (docs/footprint.md). Keeping freed blocks of up to 32 MiB on the heap instead (fewer page
/// faults, what `ingest` did while it wrote a whole capture in one transaction) raised the 400-day
/// peak to 115 MB. A glibc that refuses the settings only costs memory.
///
/// glibc applies the arena cap only to arenas made after it, and a command's `run()` starts after
/// the concurrency runtime's threads have allocated (each with an arena of its own), so called here
/// alone it leaves two or three arenas. These commands are therefore bounded before `main` as well
/// (a constructor in CHeapTuning, which reads the command line); this call keeps the bound for a
/// command run in-process (tests). With the cap set here only, the gateway's five-bracelet soak ran
/// on three arenas and grew from 17.6 to 26.4 MiB of anonymous memory over 5 simulated days.
func boundHeapForBackfill() {
    _ = bracelet_bound_heap()
}

/// Gives the heap freed since the last call back to the system (`malloc_trim`): whole free pages
/// inside the heap, and its top above no threshold. For a service whose work comes in bursts (a
/// gateway's syncs) between which it idles: without it the heap kept the high-water mark of the
/// bursts, fragmented, and grew with the run.
func releaseFreeHeap() {
    _ = bracelet_release_free_heap()
}
