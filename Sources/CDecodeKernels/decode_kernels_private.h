// What the decoder's files share and Swift does not see.
#pragma once
#include "decode_kernels.h"

/// How far ahead of the record being decoded the vector loops ask for memory (bytes), and into which
/// cache. Without the hint, records came from DRAM at a third of the plain read rate on a Zen 4 core.
/// Into L1 (T0), not L2 (T2): with the 32-record loop at about 14 instructions per record, an L2
/// hint left V2 at that third of the read rate for whole runs (4 of 5 `bench --model both`
/// processes at load 2-3), the L1 hint in none. 9 KiB: of 3, 6, 9, 12 and 16 KiB with the L1 hint
/// (`bench --model both`, 4-8 runs each, load 2.6-3.4), 9 and 12 KiB gave V1 80-87 % and V2
/// 87-92 % of the read rate, 6 KiB V1 71-81 %, 16 KiB V2 82-90 %, 3 KiB 62-67 %.
/// A prefetch past the end of the records is harmless: it never faults.
#define BRACELET_PREFETCH_BYTES 9216
#define BRACELET_PREFETCH_HINT _MM_HINT_T0

#if defined(__x86_64__)
/// The 32-record loops (decode_kernels_wide.h): decode records 0..n-1 of a model's 24- or 32-byte
/// records, n the largest multiple of 32 that fits `count`, and return n; the caller decodes the
/// rest. The `_avx2` ones need AVX2, the `_avx512` ones AVX-512VL and BW as well.
size_t bracelet_decode_v1_avx2(const uint8_t *records, size_t count, uint32_t max_steps, uint32_t max_energy,
                               const bracelet_columns *c);
size_t bracelet_decode_v2_avx2(const uint8_t *records, size_t count, uint32_t max_steps, uint32_t max_energy,
                               const bracelet_columns *c);
size_t bracelet_decode_v1_avx512(const uint8_t *records, size_t count, uint32_t max_steps, uint32_t max_energy,
                                 const bracelet_columns *c);
size_t bracelet_decode_v2_avx512(const uint8_t *records, size_t count, uint32_t max_steps, uint32_t max_energy,
                                 const bracelet_columns *c);
#endif
