// See cpu.h: the x86 features prefs uses, from glibc's answer where it has one (no CPUID of ours).
#include "cpu.h"

#if defined(__x86_64__) || defined(__i386__)
// PREFS_CPU_USE_CPUID: the CPUID code even where glibc answers (Tests/CrossArch checks it).
#if !defined(PREFS_CPU_USE_CPUID) && defined(__has_include) && __has_include(<sys/platform/x86.h>)
#include <sys/platform/x86.h>

int prefs_x86_avx2(void) { return CPU_FEATURE_ACTIVE(AVX2) ? 1 : 0; }

int prefs_x86_sha(void) {
    return CPU_FEATURE_ACTIVE(SHA) && CPU_FEATURE_ACTIVE(SSSE3) && CPU_FEATURE_ACTIVE(SSE4_1) ? 1 : 0;
}

#else
#include <cpuid.h>
#include <stdatomic.h>

enum { PREFS_CPU_KNOWN = 1, PREFS_CPU_AVX2 = 2, PREFS_CPU_SHA = 4 };

// Asked once; racing threads compute the same answer.
static int prefs_x86_features(void) {
    static _Atomic int known;
    int features = atomic_load_explicit(&known, memory_order_relaxed);
    if (features) return features;
    features = PREFS_CPU_KNOWN;
    unsigned int eax, ebx, ecx, edx;
    if (__get_cpuid(1, &eax, &ebx, &ecx, &edx)) {
        int ssse3 = (ecx & bit_SSSE3) && (ecx & bit_SSE4_1);
        // AVX state must be enabled by the system (OSXSAVE, then XCR0 bits 1 and 2: XMM and YMM).
        int ymm = 0;
        if ((ecx & bit_OSXSAVE) && (ecx & bit_AVX)) {
            unsigned int low, high;
            __asm__("xgetbv" : "=a"(low), "=d"(high) : "c"(0));
            ymm = (low & 6) == 6;
        }
        unsigned int leaf7b = 0;
        if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) leaf7b = ebx;
        if (ymm && (leaf7b & bit_AVX2)) features |= PREFS_CPU_AVX2;
        if (ssse3 && (leaf7b & bit_SHA)) features |= PREFS_CPU_SHA;
    }
    atomic_store_explicit(&known, features, memory_order_relaxed);
    return features;
}

int prefs_x86_avx2(void) { return (prefs_x86_features() & PREFS_CPU_AVX2) != 0; }

int prefs_x86_sha(void) { return (prefs_x86_features() & PREFS_CPU_SHA) != 0; }

#endif
#endif
