#define _GNU_SOURCE
#include "json_layout.h"
#include <string.h>

const void *bracelet_find_bytes(const void *haystack, size_t haystack_count, const void *needle, size_t needle_count) {
    return memmem(haystack, haystack_count, needle, needle_count);
}
