// The decoder's 32-record loop for CPUs with AVX2 (see decode_kernels_wide.h). Only called when the
// CPU has AVX2 (decode_kernels.c asks at run time), so the package still runs on any x86-64.
#include "decode_kernels_private.h"

#if defined(__x86_64__)
#include <immintrin.h>

#pragma clang attribute push(__attribute__((target("avx2"))), apply_to = function)
#define KERNEL(name) name##_avx2
#include "decode_kernels_wide.h"
#pragma clang attribute pop

#endif
