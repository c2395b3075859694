#include "crc_folding.h"

#if defined(__x86_64__)
#include <immintrin.h>

#pragma clang attribute push(__attribute__((target("pclmul,ssse3"))), apply_to = function)

static size_t crc16(uint16_t crc, const uint8_t *p, size_t n, uint8_t out[16]) {
    // Loaded big-endian: the first bit of the block is the coefficient of x^127.
    const __m128i reverse = _mm_setr_epi8(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    const __m128i k = _mm_set_epi64x(0x650b /* x^192 mod P, for the high half */, 0xaefc /* x^128 mod P */);
    __m128i r = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)p), reverse);
    r = _mm_xor_si128(r, _mm_set_epi64x((long long)((uint64_t)crc << 48), 0));
    size_t i = 16;
    for (; n - i >= 16; i += 16) {
        __m128i folded = _mm_xor_si128(_mm_clmulepi64_si128(r, k, 0x11), _mm_clmulepi64_si128(r, k, 0x00));
        r = _mm_xor_si128(folded, _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + i)), reverse));
    }
    _mm_storeu_si128((__m128i *)out, _mm_shuffle_epi8(r, reverse));
    return i;
}

static size_t crc32(uint32_t crc, const uint8_t *p, size_t n, uint8_t out[16]) {
    // Bit-reflected: the low half holds the higher powers, and a product comes out shifted by one,
    // which the constants (x^191 and x^127 mod P, reflected into 64 bits) absorb.
    const __m128i k = _mm_set_epi64x((long long)0x9ba54c6f00000000ull /* high half */, (long long)0x65673b4600000000ull /* low half */);
    __m128i r = _mm_xor_si128(_mm_loadu_si128((const __m128i *)p), _mm_cvtsi32_si128((int)crc));
    size_t i = 16;
    for (; n - i >= 16; i += 16) {
        __m128i folded = _mm_xor_si128(_mm_clmulepi64_si128(r, k, 0x00), _mm_clmulepi64_si128(r, k, 0x11));
        r = _mm_xor_si128(folded, _mm_loadu_si128((const __m128i *)(p + i)));
    }
    _mm_storeu_si128((__m128i *)out, r);
    return i;
}

#pragma clang attribute pop

// The C runtime reads the CPU's features once at start-up; asking is a load and a test.
static int can_fold(void) { return __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("ssse3"); }

size_t bracelet_crc16_fold(uint16_t crc, const uint8_t *bytes, size_t count, uint8_t out[16]) {
    return count >= 32 && can_fold() ? crc16(crc, bytes, count, out) : 0;
}

size_t bracelet_crc32_fold(uint32_t crc, const uint8_t *bytes, size_t count, uint8_t out[16]) {
    return count >= 32 && can_fold() ? crc32(crc, bytes, count, out) : 0;
}

#else

size_t bracelet_crc16_fold(uint16_t crc, const uint8_t *bytes, size_t count, uint8_t out[16]) {
    (void)crc; (void)bytes; (void)count; (void)out;
    return 0;
}

size_t bracelet_crc32_fold(uint32_t crc, const uint8_t *bytes, size_t count, uint8_t out[16]) {
    (void)crc; (void)bytes; (void)count; (void)out;
    return 0;
}

#endif
