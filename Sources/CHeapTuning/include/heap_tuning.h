#ifndef BRACELET_HEAP_TUNING_H
#define BRACELET_HEAP_TUNING_H

/// Makes glibc's malloc keep blocks of up to 32 MiB on its heap when they are freed, and keep up to
/// 64 MiB of free heap before it trims, instead of mapping each large block afresh and unmapping it on
/// free. A process that allocates and frees the same large buffers over and over (ingest: a day's
/// columns, each summary's JSON) then reuses pages it has already touched instead of taking a page
/// fault for every page of every new mapping. Returns 1 when glibc took both settings, 0 otherwise.
int bracelet_keep_freed_heap(void);

/// Bytes malloc holds right now in blocks mapped on their own (outside the heap), from mallinfo2:
/// what bracelet_keep_freed_heap is meant to keep at zero for blocks of up to 32 MiB.
unsigned long bracelet_separately_mapped_bytes(void);

/// Caps glibc's malloc at two arenas. Every thread that allocates while another holds an arena gets
/// one of its own (up to 8 per core), and each keeps the memory freed in it: a long-running service
/// whose syncs each run on a fresh thread (the gateway) grew to 77 MiB of anonymous memory over 4
/// simulated days with 5 bracelets, and to 31 MiB with two arenas. Returns 1 when glibc took it.
int bracelet_limit_arenas(void);
#endif
