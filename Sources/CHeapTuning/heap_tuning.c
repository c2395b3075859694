#include "heap_tuning.h"
#include <malloc.h>

int bracelet_bound_heap(void) {
    int arenas = mallopt(M_ARENA_MAX, 1);
    int trimmed = mallopt(M_TRIM_THRESHOLD, 8 << 20);
    return arenas == 1 && trimmed == 1;
}
