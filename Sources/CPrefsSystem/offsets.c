// The binary plist lookup's check of its offset table: the smallest and largest of many big-endian
// 32-bit numbers — eight at a time with AVX2 where the CPU has it (chosen at run time), one at a time
// elsewhere.
#include "CPrefsSystem.h"
#include "cpu.h"

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include <immintrin.h>

__attribute__((target("avx2"))) static size_t range_avx2(const uint8_t *p, size_t count, uint32_t *low, uint32_t *high) {
    if (count < 8) return 0;
    // Each 32-bit number's bytes reversed, in both 128-bit lanes.
    const __m256i swap = _mm256_setr_epi8(3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12,
                                          3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12);
    __m256i lows = _mm256_set1_epi32(-1), highs = _mm256_setzero_si256();
    size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        __m256i v = _mm256_shuffle_epi8(_mm256_loadu_si256((const __m256i *)(p + 4 * i)), swap);
        lows = _mm256_min_epu32(lows, v);
        highs = _mm256_max_epu32(highs, v);
    }
    uint32_t l[8], h[8];
    _mm256_storeu_si256((__m256i *)l, lows);
    _mm256_storeu_si256((__m256i *)h, highs);
    for (int j = 0; j < 8; j++) {
        if (l[j] < *low) *low = l[j];
        if (h[j] > *high) *high = h[j];
    }
    return i;
}
#endif

void prefs_be32_range(const uint8_t *p, size_t count, uint32_t *lowest, uint32_t *highest) {
    uint32_t low = UINT32_MAX, high = 0;
    size_t i = 0;
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (prefs_x86_avx2()) i = range_avx2(p, count, &low, &high);
#endif
    for (; i < count; i++) {
        const uint8_t *q = p + 4 * i;
        uint32_t v = (uint32_t)q[0] << 24 | (uint32_t)q[1] << 16 | (uint32_t)q[2] << 8 | q[3];
        if (v < low) low = v;
        if (v > high) high = v;
    }
    *lowest = low;
    *highest = high;
}
