// What Swift cannot reach on its own: the CPU's SHA-256 instructions, its vector instructions for
// the one-key lookups' scans (XML entries, a binary plist's offset table), and where a new thread
// starts.
#ifndef CPREFS_SYSTEM_H
#define CPREFS_SYSTEM_H

#include <stddef.h>
#include <stdint.h>
#include <pthread.h>
#include <sys/types.h>
#include <signal.h>

/// What prefs_sha256_hardware() finds.
#define PREFS_SHA256_PORTABLE 0
/// x86 SHA extensions (CPUID leaf 7 EBX bit 29) with SSSE3 and SSE4.1.
#define PREFS_SHA256_X86_SHA 1
/// ARMv8 SHA2 crypto extensions (HWCAP_SHA2).
#define PREFS_SHA256_ARM_SHA2 2

/// Which SHA-256 instructions this CPU has that this build can use: one of the values above.
int prefs_sha256_hardware(void);

/// The SHA-256 compression function over `count` consecutive 64-byte blocks, on the instructions
/// prefs_sha256_hardware() found (call it only when that is not PREFS_SHA256_PORTABLE). `state` is
/// the eight working words H0…H7, updated in place.
void prefs_sha256_compress(uint32_t state[8], const void *blocks, size_t count);

/// prefs_sha256_compress of `lanes` independent streams, each `count` blocks long: `states[i]` over
/// `blocks[i]`. On x86 four (or two) at a time, their instructions interleaved: two lanes take about
/// 0.55 the time of one after the other, four about 0.48.
void prefs_sha256_compress_lanes(uint32_t *const states[], const void *const blocks[], size_t lanes, size_t count);

/// The `needle_count` of no needle, for `prefs_xml_skip_plain_entries`.
static inline size_t prefs_no_needle(void) { return SIZE_MAX; }

/// Skips the run of plain entries of an XML plist's root dictionary at `p` (`available` bytes are in
/// memory): `<key>TEXT</key>` with ASCII text and no entity, whitespace, and a scalar value —
/// `<string>TEXT</string>`, `<integer>`, `<real>`, `<date>` or `<data>` with no markup in the text,
/// or `<true/>` or `<false/>` — each with optional whitespace before it. Stops before the first entry
/// that is not such, is not whole in the first `available - 16` bytes, or whose key is `needle` or
/// `CF$UID` (no key is `needle` when `needle_count` is `prefs_no_needle()`), and after `max_entries`. Returns
/// the bytes skipped (an entry boundary) and sets `*entries` to how many entries.
size_t prefs_xml_skip_plain_entries(const uint8_t *p, size_t available, const uint8_t *needle, size_t needle_count,
                                    size_t max_entries, size_t *entries);

/// The smallest and largest of the `count` big-endian 32-bit numbers at `p` (UINT32_MAX and 0 when
/// `count` is 0): the check that every entry of a binary plist's offset table points into the file.
void prefs_be32_range(const uint8_t *p, size_t count, uint32_t *lowest, uint32_t *highest);

/// Starts `body(context)` on a new thread placed on another CPU this thread may run on, free to move
/// once started (see thread.c). Returns 0, an error number, or -1 when there is no other CPU to use.
int prefs_start_thread_elsewhere(pthread_t *thread, void *(*body)(void *), void *context);

/// Whether this process is statically linked (no program interpreter was mapped).
int prefs_is_statically_linked(void);

/// Makes `/etc/hosts` and DNS (glibc's built-in `files` and `dns` services) the only sources of host
/// names for this process, whatever /etc/nsswitch.conf names, so getaddrinfo loads no NSS module
/// (see nss.c). 0 on success, -1 on failure; 0 and nothing done where libc is not glibc.
int prefs_hosts_from_files_and_dns(void);

/// Starts `argv[0]` (found on $PATH, execvpe) with `envp` as a job: the leader of a new process
/// group, which the child makes the foreground group of the terminal `terminal` first (-1: none),
/// killed when the calling thread ends (PR_SET_PDEATHSIG), with signal mask `mask`, SIGPIPE default
/// (`pipe_default`) or ignored. Returns its pid, or -1
/// with `*error` set (the exec's errno: ENOENT when not found).
pid_t prefs_start_job(char *const argv[], char *const envp[], int terminal, const sigset_t *mask, int pipe_default, int *error);

/// Starts writing the file's dirty pages back without waiting (`sync_file_range` with
/// SYNC_FILE_RANGE_WRITE): 0, or -1 with errno set. It promises nothing durable: an fsync still does.
int prefs_start_writeback(int fd);

/// fsync(2) of `first` on the calling thread while a thread of its own fsyncs `second` (one after
/// the other if no thread can start): 0 or the errno of `first`'s; `second`'s in `second_error`.
/// EINTR is retried.
int prefs_fsync_together(int first, int second, int *second_error);

#endif
