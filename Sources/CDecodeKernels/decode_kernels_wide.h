// The 32-record vector loop of the decoder, written once with AVX2 intrinsics and compiled twice:
// for AVX2 (decode_kernels_avx2.c) and for AVX2 with AVX-512VL and BW (decode_kernels_avx512.c),
// where the compiler has 32 vector registers instead of 16 and keeps the 24 transposed vectors of a
// step in registers instead of spilling them (V1 from cache: 730 -> 900 M records/s on Zen 4).
// Include it after a `#pragma clang attribute push` that sets the target and with KERNEL(name)
// defined to give the two entry points their names; with BRACELET_WIDE_MASKS defined to 1 (the
// AVX-512 target) the 16-bit range checks use mask registers.
//
// Register layout: the low 128-bit lane of every vector holds records i..i+15, the high lane
// records i+16..i+31. AVX2 packs and unpacks work within each lane, so the SSE2 transpose and
// packing steps carry over lane by lane and the byte columns and range masks come out in record
// order; only 16- and 32-bit columns need their lanes reordered before the store.
#include <string.h>

#ifndef BRACELET_WIDE_MASKS
#define BRACELET_WIDE_MASKS 0
#endif

// The 16 bytes at `p` in the low lane, the 16 bytes at `p + high` in the high lane.
static inline __m256i load_pair(const uint8_t *p, size_t high) {
    return _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)p)),
                                   _mm_loadu_si128((const __m128i *)(p + high)), 1);
}

// Dwords k..k+3 of records r..r+3 (low lane) and r+16..r+19 (high lane), transposed per lane.
static inline void transpose4x2(const uint8_t *p, size_t stride, __m256i out[4]) {
    const size_t high = 16 * stride;
    __m256i a = load_pair(p, high), b = load_pair(p + stride, high);
    __m256i c = load_pair(p + 2 * stride, high), d = load_pair(p + 3 * stride, high);
    __m256i t0 = _mm256_unpacklo_epi32(a, b), t1 = _mm256_unpacklo_epi32(c, d);
    __m256i t2 = _mm256_unpackhi_epi32(a, b), t3 = _mm256_unpackhi_epi32(c, d);
    out[0] = _mm256_unpacklo_epi64(t0, t1);
    out[1] = _mm256_unpackhi_epi64(t0, t1);
    out[2] = _mm256_unpacklo_epi64(t2, t3);
    out[3] = _mm256_unpackhi_epi64(t2, t3);
}

// The three column splitters below turn x[0..3] (dword k of records 4g..4g+3 | 16+4g..19+4g in
// x[g]) into columns with one byte shuffle per vector and two rounds of unpacks: the shuffle
// gathers, within each dword lane group, the same byte of four records, and the unpacks join the
// four groups. Shifting, masking and packing each column by itself took twice the operations.

// The 16-bit values of records 0..7 | 16..23 in h[0] and 8..15 | 24..31 in h[1], stored in record order.
static inline void store_u16(uint16_t *dst, const __m256i h[2]) {
    _mm256_storeu_si256((__m256i *)dst, _mm256_permute2x128_si256(h[0], h[1], 0x20));
    _mm256_storeu_si256((__m256i *)(dst + 16), _mm256_permute2x128_si256(h[0], h[1], 0x31));
}

// Bytes 0 and 1 of each dword as two byte columns (stored in record order, returned in b[0] and
// b[1]) and bytes 2..3 as a 16-bit column (stored, returned in h[0] and h[1] as for store_u16).
static inline void column_u8_u8_u16(uint8_t *dst0, uint8_t *dst1, uint16_t *dst16, const __m256i x[4],
                                    __m256i b[2], __m256i h[2]) {
    const __m256i order = _mm256_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 3, 6, 7, 10, 11, 14, 15,
                                           0, 4, 8, 12, 1, 5, 9, 13, 2, 3, 6, 7, 10, 11, 14, 15);
    __m256i s[4];
    for (int g = 0; g < 4; g++) s[g] = _mm256_shuffle_epi8(x[g], order);
    __m256i t0 = _mm256_unpacklo_epi32(s[0], s[1]), t1 = _mm256_unpacklo_epi32(s[2], s[3]);
    b[0] = _mm256_unpacklo_epi64(t0, t1);
    b[1] = _mm256_unpackhi_epi64(t0, t1);
    h[0] = _mm256_unpackhi_epi64(s[0], s[1]);
    h[1] = _mm256_unpackhi_epi64(s[2], s[3]);
    _mm256_storeu_si256((__m256i *)dst0, b[0]);
    _mm256_storeu_si256((__m256i *)dst1, b[1]);
    store_u16(dst16, h);
}

// Bytes 0, 1 and 2 of each dword as three byte columns, stored in record order and returned in b.
static inline void column_u8x3(uint8_t *dst0, uint8_t *dst1, uint8_t *dst2, const __m256i x[4], __m256i b[3]) {
    const __m256i order = _mm256_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15,
                                           0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    __m256i s[4];
    for (int g = 0; g < 4; g++) s[g] = _mm256_shuffle_epi8(x[g], order);
    __m256i t0 = _mm256_unpacklo_epi32(s[0], s[1]), t1 = _mm256_unpacklo_epi32(s[2], s[3]);
    __m256i t2 = _mm256_unpackhi_epi32(s[0], s[1]), t3 = _mm256_unpackhi_epi32(s[2], s[3]);
    b[0] = _mm256_unpacklo_epi64(t0, t1);
    b[1] = _mm256_unpackhi_epi64(t0, t1);
    b[2] = _mm256_unpacklo_epi64(t2, t3);
    _mm256_storeu_si256((__m256i *)dst0, b[0]);
    _mm256_storeu_si256((__m256i *)dst1, b[1]);
    _mm256_storeu_si256((__m256i *)dst2, b[2]);
}

// The low 16 bits of each dword of x[0..3] in lo, the high 16 bits in hi, as for store_u16.
static inline void halves(const __m256i x[4], __m256i lo[2], __m256i hi[2]) {
    const __m256i order = _mm256_setr_epi8(0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15,
                                           0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15);
    __m256i s[4];
    for (int g = 0; g < 4; g++) s[g] = _mm256_shuffle_epi8(x[g], order);
    lo[0] = _mm256_unpacklo_epi64(s[0], s[1]);
    lo[1] = _mm256_unpacklo_epi64(s[2], s[3]);
    hi[0] = _mm256_unpackhi_epi64(s[0], s[1]);
    hi[1] = _mm256_unpackhi_epi64(s[2], s[3]);
}

// The low and high 16 bits of each dword as two 16-bit columns, stored in record order and
// returned in lo and hi as for store_u16.
static inline void column_u16x2(uint16_t *dst_lo, uint16_t *dst_hi, const __m256i x[4], __m256i lo[2], __m256i hi[2]) {
    halves(x, lo, hi);
    store_u16(dst_lo, lo);
    store_u16(dst_hi, hi);
}

// The low 16 bits of each dword as a 16-bit column, stored in record order and returned as for store_u16.
static inline void column_u16_low(uint16_t *dst, const __m256i x[4], __m256i lo[2]) {
    __m256i hi[2];
    halves(x, lo, hi);
    store_u16(dst, lo);
}

// The dwords of x[0..3] (records 4g..4g+3 | 16+4g..19+4g), stored in record order.
static inline void column_u32(uint32_t *dst, const __m256i x[4]) {
    for (int g = 0; g < 4; g++) {
        _mm_storeu_si128((__m128i *)(dst + 4 * g), _mm256_castsi256_si128(x[g]));
        _mm_storeu_si128((__m128i *)(dst + 16 + 4 * g), _mm256_extracti128_si256(x[g], 1));
    }
}

// 32 bits: records whose byte is outside lo..hi and not 0xFF.
static inline uint32_t check_u8(__m256i v, uint8_t lo, uint8_t hi) {
    __m256i in = _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_max_epu8(v, _mm256_set1_epi8((char)lo)), v),
                                  _mm256_cmpeq_epi8(_mm256_min_epu8(v, _mm256_set1_epi8((char)hi)), v));
    __m256i ok = _mm256_or_si256(in, _mm256_cmpeq_epi8(v, _mm256_set1_epi8((char)0xFF)));
    return ~(uint32_t)_mm256_movemask_epi8(ok);
}

// Lanes of 0xFFFF where a 16-bit value is outside lo..hi and not 0xFFFF (unsigned, via the sign flip).
static inline __m256i bad_u16(__m256i v, uint16_t lo, uint16_t hi) {
    const __m256i flip = _mm256_set1_epi16((short)0x8000);
    __m256i x = _mm256_xor_si256(v, flip);
    __m256i out = _mm256_or_si256(_mm256_cmpgt_epi16(x, _mm256_set1_epi16((short)(hi ^ 0x8000))),
                                  _mm256_cmpgt_epi16(_mm256_set1_epi16((short)(lo ^ 0x8000)), x));
    return _mm256_andnot_si256(_mm256_cmpeq_epi16(v, _mm256_set1_epi16(-1)), out);
}

// 32 bits: records whose 16-bit value (v as for store_u16) is outside lo..hi and not 0xFFFF.
static inline uint32_t check_u16(const __m256i v[2], uint16_t lo, uint16_t hi) {
#if BRACELET_WIDE_MASKS
    // With mask registers, comparing the record-ordered vectors (the ones store_u16 stores, so the
    // compiler reuses its permutes) gives each half of the bitset directly; the packed byte mask
    // cost a round trip from masks to vectors and back for each half.
    const __m256i none = _mm256_set1_epi16(-1), low = _mm256_set1_epi16((short)lo);
    const __m256i span = _mm256_set1_epi16((short)(hi - lo));
    __m256i a = _mm256_permute2x128_si256(v[0], v[1], 0x20), b = _mm256_permute2x128_si256(v[0], v[1], 0x31);
    // Unsigned v - lo > hi - lo: below lo wraps to above the span.
    __mmask16 bad_a = _mm256_mask_cmpgt_epu16_mask(_mm256_cmpneq_epi16_mask(a, none), _mm256_sub_epi16(a, low), span);
    __mmask16 bad_b = _mm256_mask_cmpgt_epu16_mask(_mm256_cmpneq_epi16_mask(b, none), _mm256_sub_epi16(b, low), span);
    return (uint32_t)bad_a | (uint32_t)bad_b << 16;
#else
    return (uint32_t)_mm256_movemask_epi8(_mm256_packs_epi16(bad_u16(v[0], lo, hi), bad_u16(v[1], lo, hi)));
#endif
}

// Lanes of all-ones where a > b, unsigned.
static inline __m256i gt_u32(__m256i a, __m256i b) {
    const __m256i flip = _mm256_set1_epi32((int)0x80000000u);
    return _mm256_cmpgt_epi32(_mm256_xor_si256(a, flip), _mm256_xor_si256(b, flip));
}

static inline uint32_t movemask4x4(const __m256i m[4]) {
    return (uint32_t)_mm256_movemask_epi8(_mm256_packs_epi16(_mm256_packs_epi32(m[0], m[1]), _mm256_packs_epi32(m[2], m[3])));
}

// Both 16-record words of a field's range bitset at once (`i` is a multiple of 32).
static inline void put_bad(const bracelet_columns *c, int field, size_t i, uint32_t bits) {
    memcpy(c->bad[field] + i / 16, &bits, sizeof bits);
}

// Decodes records 0..n-1, n the largest multiple of 32 that fits `count`, and returns n. A V1
// record is read as bytes 0..15 and 8..23, a V2 record as 0..15 and 16..31: one pass either way.
// Inlined into each entry point, so that the record size and the model are constants there: one
// shared copy computed every address from a variable stride, ran a loop for the prefetches and
// tested the model inside the loop.
__attribute__((always_inline)) static inline size_t decode(const uint8_t *r, size_t count, size_t stride, uint32_t max_steps,
                            uint32_t max_energy, const bracelet_columns *columns, const int v2) {
    // A copy the stores cannot reach: a store through a column's byte pointer may alias the caller's
    // struct, so read through `columns` the loop loaded every column pointer again in each step.
    const bracelet_columns local = *columns, *c = &local;
    size_t i = 0;
    const __m256i none32 = _mm256_set1_epi32(-1);
    const __m256i max_e = _mm256_set1_epi32((int)max_energy);
    const uint16_t steps_limit = max_steps > 0xFFFE ? 0xFFFE : (uint16_t)max_steps;
    for (; i + 32 <= count; i += 32) {
        const uint8_t *ahead = r + i * stride + BRACELET_PREFETCH_BYTES;
        for (size_t line = 0; line < 32 * stride; line += 64) _mm_prefetch((const char *)(ahead + line), BRACELET_PREFETCH_HINT);
        __m256i d0[4], d1[4], d2[4], d3[4], d4[4], d5[4], d6[4], d7[4];
        for (int g = 0; g < 4; g++) {
            const uint8_t *p = r + (i + 4 * g) * stride;
            __m256i lo[4], hi[4];
            transpose4x2(p, stride, lo);  // dwords 0..3
            d0[g] = lo[0]; d1[g] = lo[1]; d2[g] = lo[2]; d3[g] = lo[3];
            if (v2) {
                transpose4x2(p + 16, stride, hi);  // dwords 4..7
                d4[g] = hi[0]; d5[g] = hi[1]; d6[g] = hi[2]; d7[g] = hi[3];
            } else {
                transpose4x2(p + 8, stride, hi);  // dwords 2..5
                d4[g] = hi[2]; d5[g] = hi[3];
            }
        }
        __m256i b[3], h[2], h2[2];
        column_u8_u8_u16(c->bpm + i, c->bpm_q + i, c->breath + i, d0, b, h);
        put_bad(c, BRACELET_BPM, i, check_u8(b[0], 30, 220));
        put_bad(c, BRACELET_BPM_Q, i, check_u8(b[1], 0, 4));
        put_bad(c, BRACELET_BREATH, i, check_u16(h, 500, 4500));
        column_u8_u8_u16(c->breath_q + i, c->activity + i, c->steps + i, d1, b, h);
        put_bad(c, BRACELET_BREATH_Q, i, check_u8(b[0], 0, 4));
        __m256i act = b[1];
        __m256i act_ok = _mm256_or_si256(_mm256_cmpeq_epi8(act, _mm256_set1_epi8((char)0xFF)),
                                         _mm256_andnot_si256(_mm256_or_si256(_mm256_cmpeq_epi8(act, _mm256_set1_epi8(3)), _mm256_cmpeq_epi8(act, _mm256_set1_epi8(5))),
                                                             _mm256_cmpeq_epi8(_mm256_min_epu8(act, _mm256_set1_epi8(7)), act)));
        put_bad(c, BRACELET_ACTIVITY, i, ~(uint32_t)_mm256_movemask_epi8(act_ok));
        put_bad(c, BRACELET_STEPS, i, check_u16(h, 0, steps_limit));
        column_u16x2(c->speed + i, c->skin + i, d2, h, h2);
        put_bad(c, BRACELET_SPEED, i, check_u16(h, 0, 2500));
        put_bad(c, BRACELET_SKIN, i, check_u16(h2, 2000, 4500));
        column_u32(c->energy + i, d3);
        column_u32(c->active + i, d4);
        __m256i bad_e[4], bad_a[4];
        for (int g = 0; g < 4; g++) {
            __m256i e_none = _mm256_cmpeq_epi32(d3[g], none32), a_none = _mm256_cmpeq_epi32(d4[g], none32);
            bad_e[g] = _mm256_andnot_si256(e_none, gt_u32(d3[g], max_e));
            __m256i above_total = _mm256_andnot_si256(e_none, gt_u32(d4[g], d3[g]));
            bad_a[g] = _mm256_andnot_si256(a_none, _mm256_or_si256(gt_u32(d4[g], max_e), above_total));
        }
        put_bad(c, BRACELET_ENERGY, i, movemask4x4(bad_e));
        put_bad(c, BRACELET_ACTIVE, i, movemask4x4(bad_a));
        column_u8x3(c->wearing + i, c->stage + i, c->battery + i, d5, b);
        put_bad(c, BRACELET_WEARING, i, check_u8(b[0], 0, 4));
        put_bad(c, BRACELET_STAGE, i, check_u8(b[1], 0, 4));
        put_bad(c, BRACELET_BATTERY, i, check_u8(b[2], 0, 100));
        if (v2) {
            column_u8_u8_u16(c->spo2 + i, c->spo2_q + i, c->core + i, d6, b, h);
            put_bad(c, BRACELET_SPO2, i, check_u8(b[0], 0, 100));
            put_bad(c, BRACELET_SPO2_Q, i, check_u8(b[1], 0, 4));
            put_bad(c, BRACELET_CORE, i, check_u16(h, 3400, 4200));
            column_u16_low(c->eda + i, d7, h);
            put_bad(c, BRACELET_EDA, i, check_u16(h, 0, 10000));
        }
    }
    return i;
}

size_t KERNEL(bracelet_decode_v1)(const uint8_t *r, size_t count, uint32_t max_steps, uint32_t max_energy,
                               const bracelet_columns *c) {
    return decode(r, count, 24, max_steps, max_energy, c, 0);
}

size_t KERNEL(bracelet_decode_v2)(const uint8_t *r, size_t count, uint32_t max_steps, uint32_t max_energy,
                               const bracelet_columns *c) {
    return decode(r, count, 32, max_steps, max_energy, c, 1);
}

