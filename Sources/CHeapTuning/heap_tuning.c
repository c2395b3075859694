#include "heap_tuning.h"
#include <malloc.h>

int bracelet_keep_freed_heap(void) {
    int mmapped = mallopt(M_MMAP_THRESHOLD, 32 << 20);
    int trimmed = mallopt(M_TRIM_THRESHOLD, 64 << 20);
    return mmapped == 1 && trimmed == 1;
}

unsigned long bracelet_separately_mapped_bytes(void) {
    return (unsigned long)mallinfo2().hblkhd;
}

int bracelet_limit_arenas(void) {
    return mallopt(M_ARENA_MAX, 2);
}
