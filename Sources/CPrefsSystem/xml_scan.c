// The hot loop of the streaming XML lookup: skipping the plain entries of a root dictionary. The `<` of
// each 64 bytes are found at once with the vector instructions every CPU of its architecture has
// (SSE2 on x86-64, NEON on ARM64; a portable loop elsewhere). Checked on all three by
// Tests/CrossArch/check-scans-qemu.sh.
#include "CPrefsSystem.h"

#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#elif defined(__aarch64__) && defined(__ARM_NEON)
#include <arm_neon.h>
#endif

static inline int is_space(uint8_t c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; }

#define OPENS(p, literal) (memcmp((p), (literal), sizeof(literal) - 1) == 0)

static inline uint64_t load64(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

/// Bit i is set when p[i] is `<`, for the 64 bytes from p.
static inline __attribute__((always_inline)) uint64_t lt_mask(const uint8_t *p) {
#if defined(__SSE2__)
    const __m128i lt = _mm_set1_epi8('<');
    uint64_t m0 = (uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)p), lt));
    uint64_t m1 = (uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(p + 16)), lt));
    uint64_t m2 = (uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(p + 32)), lt));
    uint64_t m3 = (uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(p + 48)), lt));
    return m0 | m1 << 16 | m2 << 32 | m3 << 48;
#elif defined(__aarch64__) && defined(__ARM_NEON)
    // The usual substitute for a byte mask on NEON: each comparison's bytes narrowed to one bit each.
    const uint8x16_t lt = vdupq_n_u8('<');
    const uint8x16_t bit = {1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128};
    uint8x16_t c0 = vandq_u8(vceqq_u8(vld1q_u8(p), lt), bit), c1 = vandq_u8(vceqq_u8(vld1q_u8(p + 16), lt), bit);
    uint8x16_t c2 = vandq_u8(vceqq_u8(vld1q_u8(p + 32), lt), bit), c3 = vandq_u8(vceqq_u8(vld1q_u8(p + 48), lt), bit);
    uint8x16_t sum = vpaddq_u8(vpaddq_u8(c0, c1), vpaddq_u8(c2, c3));
    sum = vpaddq_u8(sum, sum);
    return vgetq_lane_u64(vreinterpretq_u64_u8(sum), 0);
#else
    uint64_t mask = 0;
    for (int i = 0; i < 64; i++) mask |= (uint64_t)(p[i] == '<') << i;
    return mask;
#endif
}

/// Whether the `count` bytes at p are all ASCII and none is `&`: a key's text with no entity.
static inline int plain_text(const uint8_t *p, size_t count) {
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull, amp = ones * '&';
    size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        uint64_t v = load64(p + i), a = v ^ amp;
        if ((((a - ones) & ~a) | v) & highs) return 0;
    }
    for (; i < count; i++)
        if (p[i] == '&' || p[i] >= 0x80) return 0;
    return 1;
}

/// Whether `count` bytes at a and b are the same.
static inline int same(const uint8_t *a, const uint8_t *b, size_t count) {
    if (count < 8) return count == 0 || memcmp(a, b, count) == 0;
    for (size_t i = 0; i + 8 < count; i += 8)
        if (load64(a + i) != load64(b + i)) return 0;
    return load64(a + count - 8) == load64(b + count - 8);
}

/// Whether the bytes of p from `from` up to `to` are all whitespace.
static inline int all_space(const uint8_t *p, size_t from, size_t to) {
    for (size_t i = from; i < to; i++)
        if (!is_space(p[i])) return 0;
    return 1;
}

// Every tag of a plain entry has one `<`, its first byte, and no text holds one: the `<`s of a run of
// plain entries are its tags, in order. They are found 64 bytes at a time (independent of each other,
// so the CPU overlaps them), and each entry is checked tag by tag against them.
size_t prefs_xml_skip_plain_entries(const uint8_t *p, size_t available, const uint8_t *needle, size_t needle_count,
                                    size_t max_entries, size_t *entries) {
    *entries = 0;
    if (available < 80) return 0;
    // Tags are looked for below `end`; each test reads at most 16 bytes from a tag.
    const size_t end = (available - 16) & ~(size_t)63;
    size_t block = 0, done = 0, count = 0, at, value;
    uint64_t mask = lt_mask(p);
#define NEXT_TAG(position)                                 \
    do {                                                   \
        while (!mask) {                                    \
            block += 64;                                   \
            if (block >= end) goto stop;                   \
            mask = lt_mask(p + block);                     \
        }                                                  \
        position = block + (size_t)__builtin_ctzll(mask);  \
        mask &= mask - 1;                                  \
    } while (0)
// A value with text: its start tag at `value`, then the text, then the end tag.
#define TEXT_VALUE(open, close)                            \
    if (!OPENS(p + value, open)) goto stop;                \
    NEXT_TAG(at);                                          \
    if (!OPENS(p + at, close)) goto stop;                  \
    at += sizeof(close) - 1;
    while (count < max_entries) {
        NEXT_TAG(at);
        if (!all_space(p, done, at) || !OPENS(p + at, "<key>")) break;
        const size_t key = at + 5;
        NEXT_TAG(at);
        if (!OPENS(p + at, "</key>")) break;
        const size_t length = at - key;
        if (!plain_text(p + key, length)) break;
        if (length == needle_count && same(p + key, needle, length)) break;
        if (length == 6 && memcmp(p + key, "CF$UID", 6) == 0) break;
        NEXT_TAG(value);
        if (!all_space(p, at + 6, value)) break;
        switch (p[value + 1]) {
        case 's': TEXT_VALUE("<string>", "</string>") break;
        case 'i': TEXT_VALUE("<integer>", "</integer>") break;
        case 'r': TEXT_VALUE("<real>", "</real>") break;
        case 'd':
            if (p[value + 4] == 'e') {
                TEXT_VALUE("<date>", "</date>")
            } else {
                TEXT_VALUE("<data>", "</data>")
            }
            break;
        case 't':
            if (!OPENS(p + value, "<true/>")) goto stop;
            at = value + 7;
            break;
        case 'f':
            if (!OPENS(p + value, "<false/>")) goto stop;
            at = value + 8;
            break;
        default:
            goto stop;
        }
        done = at;
        count++;
    }
#undef TEXT_VALUE
#undef NEXT_TAG
stop:
    *entries = count;
    return done;
}
