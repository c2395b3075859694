#ifndef BRACELET_HEAP_TUNING_H
#define BRACELET_HEAP_TUNING_H

/// Makes glibc's malloc keep blocks of up to 32 MiB on its heap when they are freed, and keep up to
/// 64 MiB of free heap before it trims, instead of mapping each large block afresh and unmapping it on
/// free. A process that allocates and frees the same large buffers over and over (ingest: a day's
/// columns, each summary's JSON) then reuses pages it has already touched instead of taking a page
/// fault for every page of every new mapping. Returns 1 when glibc took both settings, 0 otherwise.
int bracelet_keep_freed_heap(void);

/// Bounds what glibc's malloc keeps beyond what is in use, for a process whose peak must stay small
/// (a backfill on a gateway): one arena for every thread (each thread's own arena keeps its freed
/// blocks apart from the others', about 25 MB more in a 30-day backfill whose two summary threads
/// come and go) and free heap given back above 8 MiB. Returns 1 when glibc took both settings.
int bracelet_bound_heap(void);

/// Bytes malloc holds right now in blocks mapped on their own (outside the heap), from mallinfo2:
/// what bracelet_keep_freed_heap is meant to keep at zero for blocks of up to 32 MiB.
unsigned long bracelet_separately_mapped_bytes(void);
#endif
