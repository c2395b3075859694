#include "heap_tuning.h"
#include <malloc.h>
#include <string.h>

/* Bounds what glibc's malloc keeps beyond what is in use, for a process whose peak must stay small
 * (a backfill on a gateway): one arena for every thread (each thread's own arena keeps its freed
 * blocks apart from the others', about 25 MB more in a 30-day backfill whose two summary threads
 * come and go) and free heap given back above 8 MiB. Returns 1 when glibc took both settings. */
static int bracelet_bound_heap(void) {
    int arenas = mallopt(M_ARENA_MAX, 1);
    int trimmed = mallopt(M_TRIM_THRESHOLD, 8 << 20);
    return arenas == 1 && trimmed == 1;
}

int bracelet_release_free_heap(void) {
    return malloc_trim(0);
}

/* glibc takes M_ARENA_MAX only for arenas made after it: every thread that allocates before it gets
 * an arena of its own, and keeps it (its freed blocks stay there). By the time a Swift command's
 * run() executes, the concurrency runtime's threads have allocated, so a cap set there leaves two or
 * three arenas. The commands whose peak must not grow with the history are therefore bounded here,
 * before main: glibc hands ELF constructors argc and argv. */
static int bounded_command(int argc, char **argv) {
    if (argc < 2) return 0;
    if (argc >= 3 && strcmp(argv[1], "gateway") == 0) return strcmp(argv[2], "run") == 0;
    return strcmp(argv[1], "listen") == 0 || strcmp(argv[1], "ingest") == 0 || strcmp(argv[1], "recompute") == 0;
}

__attribute__((constructor))
static void bracelet_bound_heap_before_main(int argc, char **argv, char **envp) {
    (void)envp;
    if (bounded_command(argc, argv)) (void)bracelet_bound_heap();
}
