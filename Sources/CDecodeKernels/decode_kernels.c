#include "decode_kernels_private.h"
#include <string.h>

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the record layout is little-endian; add byte swaps for a big-endian host"
#endif

static inline uint16_t load16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static inline uint32_t load32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }

static inline int bad8(uint32_t v, uint32_t lo, uint32_t hi) { return v != 0xFF && (v < lo || v > hi); }
static inline int bad16(uint32_t v, uint32_t lo, uint32_t hi) { return v != 0xFFFF && (v < lo || v > hi); }
static inline int bad_activity(uint32_t v) { return v != 0xFF && (v > 7 || v == 3 || v == 5); }

static inline void mark(const bracelet_columns *c, int field, size_t i, int bad) {
    if (bad) c->bad[field][i / 16] |= (uint16_t)(1u << (i % 16));
}

static void common_scalar(const uint8_t *r, size_t from, size_t count, size_t stride,
                          uint32_t max_steps, uint32_t max_energy, const bracelet_columns *c) {
    for (size_t w = from / 16; from < count && w <= (count - 1) / 16; w++) {
        for (int f = 0; f < BRACELET_SPO2; f++) c->bad[f][w] = 0;
    }
    for (size_t i = from; i < count; i++) {
        const uint8_t *p = r + i * stride;
        uint32_t energy = load32(p + 12), active = load32(p + 16);
        c->bpm[i] = p[0]; c->bpm_q[i] = p[1]; c->breath[i] = load16(p + 2); c->breath_q[i] = p[4];
        c->activity[i] = p[5]; c->steps[i] = load16(p + 6); c->speed[i] = load16(p + 8); c->skin[i] = load16(p + 10);
        c->energy[i] = energy; c->active[i] = active; c->wearing[i] = p[20]; c->stage[i] = p[21]; c->battery[i] = p[22];
        mark(c, BRACELET_BPM, i, bad8(p[0], 30, 220));
        mark(c, BRACELET_BPM_Q, i, bad8(p[1], 0, 4));
        mark(c, BRACELET_BREATH, i, bad16(load16(p + 2), 500, 4500));
        mark(c, BRACELET_BREATH_Q, i, bad8(p[4], 0, 4));
        mark(c, BRACELET_ACTIVITY, i, bad_activity(p[5]));
        mark(c, BRACELET_STEPS, i, load16(p + 6) != 0xFFFF && load16(p + 6) > max_steps);
        mark(c, BRACELET_SPEED, i, bad16(load16(p + 8), 0, 2500));
        mark(c, BRACELET_SKIN, i, bad16(load16(p + 10), 2000, 4500));
        mark(c, BRACELET_ENERGY, i, energy != 0xFFFFFFFFu && energy > max_energy);
        mark(c, BRACELET_ACTIVE, i, active != 0xFFFFFFFFu && (active > max_energy || (energy != 0xFFFFFFFFu && active > energy)));
        mark(c, BRACELET_WEARING, i, bad8(p[20], 0, 4));
        mark(c, BRACELET_STAGE, i, bad8(p[21], 0, 4));
        mark(c, BRACELET_BATTERY, i, bad8(p[22], 0, 100));
    }
}

static void v2_scalar(const uint8_t *r, size_t from, size_t count, const bracelet_columns *c) {
    for (size_t w = from / 16; from < count && w <= (count - 1) / 16; w++) {
        for (int f = BRACELET_SPO2; f < BRACELET_FIELD_COUNT; f++) c->bad[f][w] = 0;
    }
    for (size_t i = from; i < count; i++) {
        const uint8_t *p = r + i * 32;
        c->spo2[i] = p[24]; c->spo2_q[i] = p[25]; c->core[i] = load16(p + 26); c->eda[i] = load16(p + 28);
        mark(c, BRACELET_SPO2, i, bad8(p[24], 0, 100));
        mark(c, BRACELET_SPO2_Q, i, bad8(p[25], 0, 4));
        mark(c, BRACELET_CORE, i, bad16(load16(p + 26), 3400, 4200));
        mark(c, BRACELET_EDA, i, bad16(load16(p + 28), 0, 10000));
    }
}

#if defined(__SSE2__)
#include <emmintrin.h>

// AVX2 doubles the records per step; AVX-512VL and BW give the same loop 32 registers. The C
// runtime reads the CPU's features once at start-up; asking is a load and a test.
static inline int use_avx2(void) { return __builtin_cpu_supports("avx2"); }
static inline int use_avx512(void) {
    return __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw");
}

// Dwords k..k+3 of 4 records (a 16-byte load at `p` in each), transposed: out[k] = [r0 r1 r2 r3].
static inline void transpose4(const uint8_t *p, size_t stride, __m128i out[4]) {
    __m128i a = _mm_loadu_si128((const __m128i *)(p));
    __m128i b = _mm_loadu_si128((const __m128i *)(p + stride));
    __m128i c = _mm_loadu_si128((const __m128i *)(p + 2 * stride));
    __m128i d = _mm_loadu_si128((const __m128i *)(p + 3 * stride));
    __m128i t0 = _mm_unpacklo_epi32(a, b), t1 = _mm_unpacklo_epi32(c, d);
    __m128i t2 = _mm_unpackhi_epi32(a, b), t3 = _mm_unpackhi_epi32(c, d);
    out[0] = _mm_unpacklo_epi64(t0, t1);
    out[1] = _mm_unpackhi_epi64(t0, t1);
    out[2] = _mm_unpacklo_epi64(t2, t3);
    out[3] = _mm_unpackhi_epi64(t2, t3);
}

// Byte `j` of each dword of x[0..3] (16 records), stored; returned as one 16-byte vector.
static inline __m128i column_u8(uint8_t *dst, const __m128i x[4], int j) {
    const __m128i mask = _mm_set1_epi32(0xFF);
    __m128i s0 = _mm_and_si128(_mm_srli_epi32(x[0], 8 * j), mask), s1 = _mm_and_si128(_mm_srli_epi32(x[1], 8 * j), mask);
    __m128i s2 = _mm_and_si128(_mm_srli_epi32(x[2], 8 * j), mask), s3 = _mm_and_si128(_mm_srli_epi32(x[3], 8 * j), mask);
    __m128i v = _mm_packus_epi16(_mm_packs_epi32(s0, s1), _mm_packs_epi32(s2, s3));
    _mm_storeu_si128((__m128i *)dst, v);
    return v;
}

// The low or high 16 bits of each dword of x[0..3], stored; returned as two 8-lane vectors.
// Sign extension first, so that signed saturation in packs keeps every bit pattern (0xFFFF too).
static inline void column_u16(uint16_t *dst, const __m128i x[4], int high, __m128i out[2]) {
    __m128i s[4];
    for (int g = 0; g < 4; g++) s[g] = high ? _mm_srai_epi32(x[g], 16) : _mm_srai_epi32(_mm_slli_epi32(x[g], 16), 16);
    out[0] = _mm_packs_epi32(s[0], s[1]);
    out[1] = _mm_packs_epi32(s[2], s[3]);
    _mm_storeu_si128((__m128i *)dst, out[0]);
    _mm_storeu_si128((__m128i *)(dst + 8), out[1]);
}

// 16 bits: records whose byte is outside lo..hi and not 0xFF.
static inline uint16_t check_u8(__m128i v, uint8_t lo, uint8_t hi) {
    __m128i in = _mm_and_si128(_mm_cmpeq_epi8(_mm_max_epu8(v, _mm_set1_epi8((char)lo)), v),
                               _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8((char)hi)), v));
    __m128i ok = _mm_or_si128(in, _mm_cmpeq_epi8(v, _mm_set1_epi8((char)0xFF)));
    return (uint16_t)(~_mm_movemask_epi8(ok) & 0xFFFF);
}

// 8 lanes of 0xFFFF where a 16-bit value is outside lo..hi and not 0xFFFF (unsigned, via the sign flip).
static inline __m128i bad_u16(__m128i v, uint16_t lo, uint16_t hi) {
    const __m128i flip = _mm_set1_epi16((short)0x8000);
    __m128i x = _mm_xor_si128(v, flip);
    __m128i out = _mm_or_si128(_mm_cmpgt_epi16(x, _mm_set1_epi16((short)(hi ^ 0x8000))),
                               _mm_cmplt_epi16(x, _mm_set1_epi16((short)(lo ^ 0x8000))));
    return _mm_andnot_si128(_mm_cmpeq_epi16(v, _mm_set1_epi16(-1)), out);
}

static inline uint16_t check_u16(const __m128i v[2], uint16_t lo, uint16_t hi) {
    return (uint16_t)_mm_movemask_epi8(_mm_packs_epi16(bad_u16(v[0], lo, hi), bad_u16(v[1], lo, hi)));
}

// 4 lanes of all-ones where a (unsigned) > b.
static inline __m128i gt_u32(__m128i a, __m128i b) {
    const __m128i flip = _mm_set1_epi32((int)0x80000000u);
    return _mm_cmpgt_epi32(_mm_xor_si128(a, flip), _mm_xor_si128(b, flip));
}

static inline uint16_t movemask4x4(const __m128i m[4]) {
    return (uint16_t)_mm_movemask_epi8(_mm_packs_epi16(_mm_packs_epi32(m[0], m[1]), _mm_packs_epi32(m[2], m[3])));
}

// Records from..count-1 (`from` a multiple of 16), 16 at a time; returns where it stopped.
static size_t common_sse2(const uint8_t *r, size_t i, size_t count, size_t stride,
                          uint32_t max_steps, uint32_t max_energy, const bracelet_columns *c) {
    const __m128i none32 = _mm_set1_epi32(-1);
    const __m128i max_e = _mm_set1_epi32((int)max_energy);
    const uint16_t steps_limit = max_steps > 0xFFFE ? 0xFFFE : (uint16_t)max_steps;
    // A 16-byte load at offset 8 reads bytes 8..23, inside every record of 24 or more bytes.
    for (; stride >= 24 && i + 16 <= count; i += 16) {
        const uint8_t *ahead = r + i * stride + BRACELET_PREFETCH_BYTES;
        for (size_t line = 0; line < 16 * stride; line += 64) _mm_prefetch((const char *)(ahead + line), BRACELET_PREFETCH_HINT);
        __m128i d0[4], d1[4], d2[4], d3[4], d4[4], d5[4], v16[2];
        for (int g = 0; g < 4; g++) {
            const uint8_t *p = r + (i + 4 * g) * stride;
            __m128i lo[4], hi[4];
            transpose4(p, stride, lo);      // dwords 0..3
            transpose4(p + 8, stride, hi);  // dwords 2..5
            d0[g] = lo[0]; d1[g] = lo[1]; d2[g] = lo[2]; d3[g] = lo[3]; d4[g] = hi[2]; d5[g] = hi[3];
        }
        size_t w = i / 16;
        c->bad[BRACELET_BPM][w] = check_u8(column_u8(c->bpm + i, d0, 0), 30, 220);
        c->bad[BRACELET_BPM_Q][w] = check_u8(column_u8(c->bpm_q + i, d0, 1), 0, 4);
        column_u16(c->breath + i, d0, 1, v16);
        c->bad[BRACELET_BREATH][w] = check_u16(v16, 500, 4500);
        c->bad[BRACELET_BREATH_Q][w] = check_u8(column_u8(c->breath_q + i, d1, 0), 0, 4);
        __m128i act = column_u8(c->activity + i, d1, 1);
        __m128i act_ok = _mm_or_si128(_mm_cmpeq_epi8(act, _mm_set1_epi8((char)0xFF)),
                                      _mm_andnot_si128(_mm_or_si128(_mm_cmpeq_epi8(act, _mm_set1_epi8(3)), _mm_cmpeq_epi8(act, _mm_set1_epi8(5))),
                                                       _mm_cmpeq_epi8(_mm_min_epu8(act, _mm_set1_epi8(7)), act)));
        c->bad[BRACELET_ACTIVITY][w] = (uint16_t)(~_mm_movemask_epi8(act_ok) & 0xFFFF);
        column_u16(c->steps + i, d1, 1, v16);
        c->bad[BRACELET_STEPS][w] = check_u16(v16, 0, steps_limit);
        column_u16(c->speed + i, d2, 0, v16);
        c->bad[BRACELET_SPEED][w] = check_u16(v16, 0, 2500);
        column_u16(c->skin + i, d2, 1, v16);
        c->bad[BRACELET_SKIN][w] = check_u16(v16, 2000, 4500);
        __m128i bad_e[4], bad_a[4];
        for (int g = 0; g < 4; g++) {
            _mm_storeu_si128((__m128i *)(c->energy + i + 4 * g), d3[g]);
            _mm_storeu_si128((__m128i *)(c->active + i + 4 * g), d4[g]);
            __m128i e_none = _mm_cmpeq_epi32(d3[g], none32), a_none = _mm_cmpeq_epi32(d4[g], none32);
            bad_e[g] = _mm_andnot_si128(e_none, gt_u32(d3[g], max_e));
            __m128i above_total = _mm_andnot_si128(e_none, gt_u32(d4[g], d3[g]));
            bad_a[g] = _mm_andnot_si128(a_none, _mm_or_si128(gt_u32(d4[g], max_e), above_total));
        }
        c->bad[BRACELET_ENERGY][w] = movemask4x4(bad_e);
        c->bad[BRACELET_ACTIVE][w] = movemask4x4(bad_a);
        c->bad[BRACELET_WEARING][w] = check_u8(column_u8(c->wearing + i, d5, 0), 0, 4);
        c->bad[BRACELET_STAGE][w] = check_u8(column_u8(c->stage + i, d5, 1), 0, 4);
        c->bad[BRACELET_BATTERY][w] = check_u8(column_u8(c->battery + i, d5, 2), 0, 100);
    }
    return i;
}

// The V2 fields of records from..count-1 (`from` a multiple of 16), 16 at a time; returns where it
// stopped. The records were just read by common_sse2, so they are in cache.
static size_t v2_sse2(const uint8_t *r, size_t i, size_t count, const bracelet_columns *c) {
    for (; i + 16 <= count; i += 16) {
        __m128i d6[4], d7[4], v16[2];
        for (int g = 0; g < 4; g++) {
            __m128i t[4];
            transpose4(r + (i + 4 * g) * 32 + 16, 32, t);  // dwords 4..7
            d6[g] = t[2]; d7[g] = t[3];
        }
        size_t w = i / 16;
        c->bad[BRACELET_SPO2][w] = check_u8(column_u8(c->spo2 + i, d6, 0), 0, 100);
        c->bad[BRACELET_SPO2_Q][w] = check_u8(column_u8(c->spo2_q + i, d6, 1), 0, 4);
        column_u16(c->core + i, d6, 1, v16);
        c->bad[BRACELET_CORE][w] = check_u16(v16, 3400, 4200);
        column_u16(c->eda + i, d7, 0, v16);
        c->bad[BRACELET_EDA][w] = check_u16(v16, 0, 10000);
    }
    return i;
}

void bracelet_decode(const uint8_t *r, size_t count, size_t stride, int v2,
                     uint32_t max_steps, uint32_t max_energy, const bracelet_columns *c) {
    size_t done = 0;
    if (stride == (v2 ? 32 : 24)) {
        if (use_avx512()) {
            done = v2 ? bracelet_decode_v2_avx512(r, count, max_steps, max_energy, c)
                      : bracelet_decode_v1_avx512(r, count, max_steps, max_energy, c);
        } else if (use_avx2()) {
            done = v2 ? bracelet_decode_v2_avx2(r, count, max_steps, max_energy, c)
                      : bracelet_decode_v1_avx2(r, count, max_steps, max_energy, c);
        }
    }
    size_t from = done;
    done = common_sse2(r, from, count, stride, max_steps, max_energy, c);
    common_scalar(r, done, count, stride, max_steps, max_energy, c);
    if (v2) v2_scalar(r, v2_sse2(r, from, count, c), count, c);
}

#else

void bracelet_decode(const uint8_t *r, size_t count, size_t stride, int v2,
                     uint32_t max_steps, uint32_t max_energy, const bracelet_columns *c) {
    common_scalar(r, 0, count, stride, max_steps, max_energy, c);
    if (v2) v2_scalar(r, 0, count, c);
}

#endif
