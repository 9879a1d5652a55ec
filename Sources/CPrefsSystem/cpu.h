// What the x86 CPU offers that the C scans and the hash may use, asked without a start-up cost.
//
// The compiler's __builtin_cpu_supports would link in libgcc's constructor __cpu_indicator_init,
// which runs about a dozen CPUID instructions when every process starts, used or not. In a virtual
// machine each CPUID traps to the hypervisor: 7–10 µs apiece on the machines prefs is measured on,
// about 0.1 ms of every command. glibc has already asked the CPU once, before main, and since 2.33
// answers from that (<sys/platform/x86.h>); elsewhere these ask CPUID themselves, on first use only.
#ifndef PREFS_CPU_H
#define PREFS_CPU_H

#if defined(__x86_64__) || defined(__i386__)
/// 1 when AVX2 may be used: the CPU has it and the system saves the YMM registers.
int prefs_x86_avx2(void);
/// 1 when the SHA extensions, SSSE3 and SSE4.1 may all be used.
int prefs_x86_sha(void);
#endif

#endif
