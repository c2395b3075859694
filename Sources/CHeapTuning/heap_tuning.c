#include "heap_tuning.h"
#include <malloc.h>
#include <string.h>

/* Bounds what glibc's malloc keeps beyond what is in use, for a process whose peak must stay small
 * (a backfill on a gateway): one arena for every thread (each thread's own arena keeps its freed
 * blocks apart from the others', about 25 MB more in a 30-day backfill whose two summary threads
 * come and go) and free heap given back above 8 MiB. Returns 1 when glibc took both settings.
 *
 * Setting the trim threshold also fixes glibc's mmap threshold at 128 KiB, where it would grow with
 * the blocks freed: then every array above 128 KiB (a run of days' slots and beats, a day's JSON,
 * a piece of a file) is pages mapped for it, faulted in and unmapped again. With `reuse_large`,
 * blocks up to 4 MiB come from the heap and are reused: a 400-day ingest spent 1.1-1.4 s of its
 * 4.7 s in the kernel with 128 KiB and 0.4-0.6 s with 4 MiB, its peak 82-84 against 83-87 MiB
 * (listen 400 days: sys 1.8-2.0 against 1.4-1.6 s, 82-84 against 83-85 MiB). */
static int bracelet_bound_heap(int reuse_large) {
    int arenas = mallopt(M_ARENA_MAX, 1);
    int trimmed = mallopt(M_TRIM_THRESHOLD, 8 << 20);
    if (reuse_large) (void)mallopt(M_MMAP_THRESHOLD, 4 << 20);
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
static int single_backfill(int argc, char **argv);

static int bounded_command(int argc, char **argv) {
    if (argc < 2) return 0;
    if (argc >= 3 && strcmp(argv[1], "gateway") == 0) return strcmp(argv[2], "run") == 0;
    return single_backfill(argc, argv);
}

/* The commands that take one backfill at a time: large blocks are reused from the heap there. A
 * gateway takes several at once, each with blocks of its own: it keeps the fixed threshold. */
static int single_backfill(int argc, char **argv) {
    if (argc < 2) return 0;
    return strcmp(argv[1], "listen") == 0 || strcmp(argv[1], "ingest") == 0 || strcmp(argv[1], "recompute") == 0;
}

__attribute__((constructor))
static void bracelet_bound_heap_before_main(int argc, char **argv, char **envp) {
    (void)envp;
    if (bounded_command(argc, argv)) (void)bracelet_bound_heap(single_backfill(argc, argv));
}
