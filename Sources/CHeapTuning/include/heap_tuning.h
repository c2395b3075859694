#ifndef BRACELET_HEAP_TUNING_H
#define BRACELET_HEAP_TUNING_H

/// Bounds what glibc's malloc keeps beyond what is in use, for a process whose peak must stay small
/// (a backfill on a gateway): one arena for every thread (each thread's own arena keeps its freed
/// blocks apart from the others', about 25 MB more in a 30-day backfill whose two summary threads
/// come and go) and free heap given back above 8 MiB. Returns 1 when glibc took both settings.
int bracelet_bound_heap(void);

/// Gives the free memory of every malloc arena back to the system (malloc_trim(0)): whole free pages
/// inside the heaps too, not only the top. Returns 1 when some memory was released.
int bracelet_release_free_heap(void);

#endif
