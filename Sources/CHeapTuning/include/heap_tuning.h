#ifndef BRACELET_HEAP_TUNING_H
#define BRACELET_HEAP_TUNING_H

/// Gives the free memory of every malloc arena back to the system (malloc_trim(0)): whole free pages
/// inside the heaps too, not only the top. Returns 1 when some memory was released.
int bracelet_release_free_heap(void);

#endif
