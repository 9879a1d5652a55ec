// The SHA-256 compression function on the CPU's own instructions: the x86 SHA extensions (SHA-NI) or
// the ARMv8 SHA2 crypto extensions. Each is compiled for its instructions through a per-function
// target attribute, so the rest of the build needs no -m flags and the binary still runs on a CPU
// without them; prefs_sha256_hardware() says at run time whether the instructions may be used.
// Both follow the standard formulations (Intel's SHA extensions paper; ARM's reference sequence
// for SHA256H/SHA256H2/SHA256SU0/SHA256SU1), four rounds per step.
#include "CPrefsSystem.h"

#if defined(__x86_64__) || defined(__i386__)
#include "cpu.h"
#include <immintrin.h>
#define PREFS_SHA256_X86 1
#elif defined(__aarch64__) && defined(__linux__)
#include <arm_neon.h>
#include <sys/auxv.h>
#ifndef HWCAP_SHA2
#define HWCAP_SHA2 (1 << 6)
#endif
#define PREFS_SHA256_ARM 1
#endif

#if defined(PREFS_SHA256_X86) || defined(PREFS_SHA256_ARM)
// FIPS 180-4 §4.2.2: the 64 round constants.
static const uint32_t prefs_sha256_k[64] __attribute__((aligned(16))) = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};
#endif

#if defined(PREFS_SHA256_X86)

int prefs_sha256_hardware(void) { return prefs_x86_sha() ? PREFS_SHA256_X86_SHA : PREFS_SHA256_PORTABLE; }

// Rounds 4i…4i+3 of stream S: two SHA256RNDS2 on its state, kept as abefS and cdghS, with the
// message words in `cur` (W[4i…4i+3]). Meanwhile the schedule finishes the next four words in
// `next`, which holds W[t-16] + σ0(W[t-15]) from SHA256MSG1 (PALIGNR brings W[t-7], SHA256MSG2 adds
// σ1(W[t-2])), and starts the words three steps ahead in `prev` (SHA256MSG1).
#define PREFS_SHA_NI_ROUNDS(i, S, cur, next, prev)                                                 \
    do {                                                                                           \
        __m128i w = _mm_add_epi32(cur, _mm_load_si128((const __m128i *)&prefs_sha256_k[4 * (i)])); \
        cdgh##S = _mm_sha256rnds2_epu32(cdgh##S, abef##S, w);                                      \
        if ((i) >= 3 && (i) <= 14)                                                                 \
            next = _mm_sha256msg2_epu32(_mm_add_epi32(next, _mm_alignr_epi8(cur, prev, 4)), cur);  \
        abef##S = _mm_sha256rnds2_epu32(abef##S, cdgh##S, _mm_shuffle_epi32(w, 0x0E));             \
        if ((i) >= 1 && (i) <= 12) prev = _mm_sha256msg1_epu32(prev, cur);                         \
    } while (0)

// The state of stream S as the instructions want it: ABEF and CDGH.
#define PREFS_SHA_NI_LOAD_STATE(S, state)                                          \
    __m128i abef##S, cdgh##S;                                                      \
    do {                                                                           \
        __m128i dcba = _mm_loadu_si128((const __m128i_u *)&(state)[0]);            \
        __m128i hgfe = _mm_loadu_si128((const __m128i_u *)&(state)[4]);            \
        __m128i cdab = _mm_shuffle_epi32(dcba, 0xB1);                              \
        __m128i efgh = _mm_shuffle_epi32(hgfe, 0x1B);                              \
        abef##S = _mm_alignr_epi8(cdab, efgh, 8);                                  \
        cdgh##S = _mm_blend_epi16(efgh, cdab, 0xF0);                               \
    } while (0)

#define PREFS_SHA_NI_STORE_STATE(S, state)                                         \
    do {                                                                           \
        __m128i feba = _mm_shuffle_epi32(abef##S, 0x1B);                           \
        __m128i dchg = _mm_shuffle_epi32(cdgh##S, 0xB1);                           \
        _mm_storeu_si128((__m128i_u *)&(state)[0], _mm_blend_epi16(feba, dchg, 0xF0)); \
        _mm_storeu_si128((__m128i_u *)&(state)[4], _mm_alignr_epi8(dchg, feba, 8)); \
    } while (0)

// Block `p`'s sixteen words for stream S (m0S…m3S), and the state it starts from.
#define PREFS_SHA_NI_LOAD_BLOCK(S, p)                                                            \
    const __m128i abefStart##S = abef##S, cdghStart##S = cdgh##S;                               \
    __m128i m0##S = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i_u *)((p) + 0)), byteSwap);  \
    __m128i m1##S = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i_u *)((p) + 16)), byteSwap); \
    __m128i m2##S = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i_u *)((p) + 32)), byteSwap); \
    __m128i m3##S = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i_u *)((p) + 48)), byteSwap)

#define PREFS_SHA_NI_END_BLOCK(S)                      \
    do {                                               \
        abef##S = _mm_add_epi32(abef##S, abefStart##S); \
        cdgh##S = _mm_add_epi32(cdgh##S, cdghStart##S); \
    } while (0)

// The 64 rounds of a block for each stream in STEP (one stream, or two or four interleaved).
#define PREFS_SHA_NI_BLOCK(STEP) \
    STEP(0, m0, m1, m3);         \
    STEP(1, m1, m2, m0);         \
    STEP(2, m2, m3, m1);         \
    STEP(3, m3, m0, m2);         \
    STEP(4, m0, m1, m3);         \
    STEP(5, m1, m2, m0);         \
    STEP(6, m2, m3, m1);         \
    STEP(7, m3, m0, m2);         \
    STEP(8, m0, m1, m3);         \
    STEP(9, m1, m2, m0);         \
    STEP(10, m2, m3, m1);        \
    STEP(11, m3, m0, m2);        \
    STEP(12, m0, m1, m3);        \
    STEP(13, m1, m2, m0);        \
    STEP(14, m2, m3, m1);        \
    STEP(15, m3, m0, m2)

#define PREFS_SHA_NI_STEP_1(i, cur, next, prev) PREFS_SHA_NI_ROUNDS(i, 0, cur##0, next##0, prev##0)
#define PREFS_SHA_NI_STEP_2(i, cur, next, prev) \
    PREFS_SHA_NI_ROUNDS(i, 0, cur##0, next##0, prev##0); PREFS_SHA_NI_ROUNDS(i, 1, cur##1, next##1, prev##1)

__attribute__((target("sha,sse4.1,ssse3")))
static void prefs_sha256_compress_x86(uint32_t state[8], const uint8_t *blocks, size_t count) {
    const __m128i byteSwap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    PREFS_SHA_NI_LOAD_STATE(0, state);
    for (; count > 0; count--, blocks += 64) {
        PREFS_SHA_NI_LOAD_BLOCK(0, blocks);
        PREFS_SHA_NI_BLOCK(PREFS_SHA_NI_STEP_1);
        PREFS_SHA_NI_END_BLOCK(0);
    }
    PREFS_SHA_NI_STORE_STATE(0, state);
}

#define PREFS_SHA_NI_STEP_4(i, cur, next, prev)                                                          \
    PREFS_SHA_NI_ROUNDS(i, 0, cur##0, next##0, prev##0); PREFS_SHA_NI_ROUNDS(i, 1, cur##1, next##1, prev##1); \
    PREFS_SHA_NI_ROUNDS(i, 2, cur##2, next##2, prev##2); PREFS_SHA_NI_ROUNDS(i, 3, cur##3, next##3, prev##3)

// Independent streams, their instructions interleaved: SHA256RNDS2 waits on the one before of its
// own stream, so one stream leaves the SHA unit idle much of the time. Measured on this AMD EPYC,
// 96 MB split in equal streams: one 56-60 ms, two 31-36, four 27-28 (the registers run out: the
// compiler keeps some on the stack).
__attribute__((target("sha,sse4.1,ssse3")))
static void prefs_sha256_compress_pair_x86(uint32_t *const states[2], const uint8_t *const blocks[2], size_t count) {
    const __m128i byteSwap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    const uint8_t *a = blocks[0], *b = blocks[1];
    PREFS_SHA_NI_LOAD_STATE(0, states[0]);
    PREFS_SHA_NI_LOAD_STATE(1, states[1]);
    for (; count > 0; count--, a += 64, b += 64) {
        PREFS_SHA_NI_LOAD_BLOCK(0, a);
        PREFS_SHA_NI_LOAD_BLOCK(1, b);
        PREFS_SHA_NI_BLOCK(PREFS_SHA_NI_STEP_2);
        PREFS_SHA_NI_END_BLOCK(0);
        PREFS_SHA_NI_END_BLOCK(1);
    }
    PREFS_SHA_NI_STORE_STATE(0, states[0]);
    PREFS_SHA_NI_STORE_STATE(1, states[1]);
}

__attribute__((target("sha,sse4.1,ssse3")))
static void prefs_sha256_compress_four_x86(uint32_t *const states[4], const uint8_t *const blocks[4], size_t count) {
    const __m128i byteSwap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    const uint8_t *a = blocks[0], *b = blocks[1], *c = blocks[2], *d = blocks[3];
    PREFS_SHA_NI_LOAD_STATE(0, states[0]);
    PREFS_SHA_NI_LOAD_STATE(1, states[1]);
    PREFS_SHA_NI_LOAD_STATE(2, states[2]);
    PREFS_SHA_NI_LOAD_STATE(3, states[3]);
    for (; count > 0; count--, a += 64, b += 64, c += 64, d += 64) {
        PREFS_SHA_NI_LOAD_BLOCK(0, a);
        PREFS_SHA_NI_LOAD_BLOCK(1, b);
        PREFS_SHA_NI_LOAD_BLOCK(2, c);
        PREFS_SHA_NI_LOAD_BLOCK(3, d);
        PREFS_SHA_NI_BLOCK(PREFS_SHA_NI_STEP_4);
        PREFS_SHA_NI_END_BLOCK(0);
        PREFS_SHA_NI_END_BLOCK(1);
        PREFS_SHA_NI_END_BLOCK(2);
        PREFS_SHA_NI_END_BLOCK(3);
    }
    PREFS_SHA_NI_STORE_STATE(0, states[0]);
    PREFS_SHA_NI_STORE_STATE(1, states[1]);
    PREFS_SHA_NI_STORE_STATE(2, states[2]);
    PREFS_SHA_NI_STORE_STATE(3, states[3]);
}

void prefs_sha256_compress(uint32_t state[8], const void *blocks, size_t count) {
    prefs_sha256_compress_x86(state, (const uint8_t *)blocks, count);
}

void prefs_sha256_compress_lanes(uint32_t *const states[], const void *const blocks[], size_t lanes, size_t count) {
    const uint8_t *const *bytes = (const uint8_t *const *)blocks;
    size_t lane = 0;
    for (; lane + 4 <= lanes; lane += 4) prefs_sha256_compress_four_x86(states + lane, bytes + lane, count);
    for (; lane + 2 <= lanes; lane += 2) prefs_sha256_compress_pair_x86(states + lane, bytes + lane, count);
    for (; lane < lanes; lane++) prefs_sha256_compress_x86(states[lane], bytes[lane], count);
}

#elif defined(PREFS_SHA256_ARM)

int prefs_sha256_hardware(void) {
    return (getauxval(AT_HWCAP) & HWCAP_SHA2) ? PREFS_SHA256_ARM_SHA2 : PREFS_SHA256_PORTABLE;
}

// Rounds 4i…4i+3: SHA256H and SHA256H2 on the state ABCD, EFGH with the message words in `cur`
// (W[4i…4i+3]); while words are still to be made, `cur` then becomes the words four steps ahead
// (SHA256SU0 adds σ0(W[t-15]) to W[t-16], SHA256SU1 adds W[t-7] and σ1(W[t-2])).
#define PREFS_SHA_ARM_ROUNDS(i, cur, next1, next2, next3)                            \
    do {                                                                             \
        uint32x4_t w = vaddq_u32(cur, vld1q_u32(&prefs_sha256_k[4 * (i)]));          \
        if ((i) < 12) cur = vsha256su1q_u32(vsha256su0q_u32(cur, next1), next2, next3); \
        uint32x4_t abcdBefore = abcd;                                                \
        abcd = vsha256hq_u32(abcd, efgh, w);                                         \
        efgh = vsha256h2q_u32(efgh, abcdBefore, w);                                  \
    } while (0)

__attribute__((target("sha2")))
static void prefs_sha256_compress_arm(uint32_t state[8], const uint8_t *blocks, size_t count) {
    uint32x4_t abcd = vld1q_u32(&state[0]);
    uint32x4_t efgh = vld1q_u32(&state[4]);
    for (; count > 0; count--, blocks += 64) {
        const uint32x4_t abcdStart = abcd, efghStart = efgh;
        uint32x4_t m0 = vreinterpretq_u32_u8(vrev32q_u8(vld1q_u8(blocks + 0)));
        uint32x4_t m1 = vreinterpretq_u32_u8(vrev32q_u8(vld1q_u8(blocks + 16)));
        uint32x4_t m2 = vreinterpretq_u32_u8(vrev32q_u8(vld1q_u8(blocks + 32)));
        uint32x4_t m3 = vreinterpretq_u32_u8(vrev32q_u8(vld1q_u8(blocks + 48)));
        PREFS_SHA_ARM_ROUNDS(0, m0, m1, m2, m3);
        PREFS_SHA_ARM_ROUNDS(1, m1, m2, m3, m0);
        PREFS_SHA_ARM_ROUNDS(2, m2, m3, m0, m1);
        PREFS_SHA_ARM_ROUNDS(3, m3, m0, m1, m2);
        PREFS_SHA_ARM_ROUNDS(4, m0, m1, m2, m3);
        PREFS_SHA_ARM_ROUNDS(5, m1, m2, m3, m0);
        PREFS_SHA_ARM_ROUNDS(6, m2, m3, m0, m1);
        PREFS_SHA_ARM_ROUNDS(7, m3, m0, m1, m2);
        PREFS_SHA_ARM_ROUNDS(8, m0, m1, m2, m3);
        PREFS_SHA_ARM_ROUNDS(9, m1, m2, m3, m0);
        PREFS_SHA_ARM_ROUNDS(10, m2, m3, m0, m1);
        PREFS_SHA_ARM_ROUNDS(11, m3, m0, m1, m2);
        PREFS_SHA_ARM_ROUNDS(12, m0, m1, m2, m3);
        PREFS_SHA_ARM_ROUNDS(13, m1, m2, m3, m0);
        PREFS_SHA_ARM_ROUNDS(14, m2, m3, m0, m1);
        PREFS_SHA_ARM_ROUNDS(15, m3, m0, m1, m2);
        abcd = vaddq_u32(abcd, abcdStart);
        efgh = vaddq_u32(efgh, efghStart);
    }
    vst1q_u32(&state[0], abcd);
    vst1q_u32(&state[4], efgh);
}

void prefs_sha256_compress(uint32_t state[8], const void *blocks, size_t count) {
    prefs_sha256_compress_arm(state, (const uint8_t *)blocks, count);
}

// One stream after the other: not interleaved (yet) on ARM.
void prefs_sha256_compress_lanes(uint32_t *const states[], const void *const blocks[], size_t lanes, size_t count) {
    for (size_t lane = 0; lane < lanes; lane++) prefs_sha256_compress_arm(states[lane], (const uint8_t *)blocks[lane], count);
}

#else

int prefs_sha256_hardware(void) { return PREFS_SHA256_PORTABLE; }

void prefs_sha256_compress(uint32_t state[8], const void *blocks, size_t count) {
    (void)state, (void)blocks, (void)count;
    __builtin_trap(); // Never called: prefs_sha256_hardware() said there is nothing to call.
}

void prefs_sha256_compress_lanes(uint32_t *const states[], const void *const blocks[], size_t lanes, size_t count) {
    (void)states, (void)blocks, (void)lanes, (void)count;
    __builtin_trap(); // As above.
}

#endif
