// OpenSSL's view of the CPU, set up when TLS is first used rather than when the program starts.
//
// A static libcrypto puts a call of OPENSSL_cpuid_setup in the `.init` section, so every run of
// prefs would execute its CPUID instructions before main — each one a trap to the hypervisor on a
// virtual machine, about 0.1 ms per start measured here, paid by every command on files that never
// speaks TLS. This file defines OPENSSL_cpuid_setup, so the linker takes it instead of libcrypto's
// (which is alone in its object file): the call from `.init` does nothing, and prefs_tls_cpu_setup,
// called before the first TLS context is made, does what OpenSSL's does: it asks OpenSSL's own
// OPENSSL_ia32_cpuid for the capabilities and records them in OPENSSL_ia32cap_P. (The environment
// variable OPENSSL_ia32cap, which OpenSSL's version reads to mask capabilities, is not read.)
//
// A shared libcrypto (a debug build, the tests) keeps all of this to itself: it sets its capabilities
// up when it is loaded, and exports neither of the two symbols used here, which are weak references
// so that such a build links; they are then null and nothing is done.
#include <pthread.h>
#include <stdint.h>

void prefs_tls_cpu_setup(void);

#if defined(__x86_64__)
extern unsigned int OPENSSL_ia32cap_P[4] __attribute__((weak));
uint64_t OPENSSL_ia32_cpuid(unsigned int *capabilities) __attribute__((weak));
void OPENSSL_cpuid_setup(void);

static int wanted;

void OPENSSL_cpuid_setup(void) {
    static int done;
    if (!wanted || done || !OPENSSL_ia32_cpuid || !OPENSSL_ia32cap_P) return;
    done = 1;
    uint64_t vector = OPENSSL_ia32_cpuid(OPENSSL_ia32cap_P);
    // Bit 10 (reserved by Intel) marks the capabilities as set up, as OpenSSL does.
    OPENSSL_ia32cap_P[0] = (unsigned int)vector | (1u << 10);
    OPENSSL_ia32cap_P[1] = (unsigned int)(vector >> 32);
}

static void setup(void) {
    wanted = 1;
    OPENSSL_cpuid_setup();
}

void prefs_tls_cpu_setup(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, setup);
}
#else
void prefs_tls_cpu_setup(void) {}
#endif
