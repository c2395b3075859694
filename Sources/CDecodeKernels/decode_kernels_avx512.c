// The decoder's 32-record loop for CPUs with AVX-512VL and BW (see decode_kernels_wide.h): the same
// AVX2 code, compiled with 32 vector registers. Only called when the CPU has them.
#include "decode_kernels_private.h"

#if defined(__x86_64__)
#include <immintrin.h>

#pragma clang attribute push(__attribute__((target("avx2,avx512f,avx512vl,avx512bw"))), apply_to = function)
#define KERNEL(name) name##_avx512
#define BRACELET_WIDE_MASKS 1
#include "decode_kernels_wide.h"
#pragma clang attribute pop

#endif
