#!/usr/bin/env bash
# Runs CPrefsSystem's scans where this machine's CPU does not take them:
# - the XML entry scan (prefs_xml_skip_plain_entries) three ways: SSE2 on x86-64, the NEON code under
#   qemu-aarch64, and the portable loop (x86-64 built with __SSE2__ undefined). A small C harness makes
#   50,000 windows of plist entries from a fixed seed — plain ones and every kind the scan must stop at
#   (entities, non-ASCII keys, markup in text, the key asked for, CF$UID, stray bytes, cut-off tags) —
#   and prints what the scan says of each; the three outputs must be the same. (Against the
#   whole-document parser it is tested by StreamedLookupTests and the fuzzer's patch target, on this
#   machine's SSE2.)
# - the offset-table range (prefs_be32_range) with AVX2 here, and without it (qemu-x86_64 -cpu Nehalem,
#   and aarch64): every count 0–100 at every alignment, and 1M random numbers, against a plain loop.
# Not part of `swift test`: a manual check after editing xml_scan.c or offsets.c.
#   Tests/CrossArch/check-scans-qemu.sh
#   (needs: apt-get install qemu-user libc6-dev-arm64-cross libgcc-12-dev-arm64-cross)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
c=$root/Sources/CPrefsSystem
for tool in clang qemu-aarch64 qemu-x86_64; do
  command -v "$tool" >/dev/null || { echo "needs $tool" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/harness.c" <<'C'
#include "CPrefsSystem.h"
#include <stdio.h>
#include <string.h>

static uint64_t state = 0x9E3779B97F4A7C15ull;
static unsigned next(unsigned bound) {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    return (unsigned)(state % bound);
}

static const char *spaces[] = {"", "\n", "\n\t", "  ", "\r\n\t\t", "\t \n"};
static const char *keys[] = {"key0000001", "a", "", "needle", "CF$UID", "k&amp;", "k\xc3\xa9", "longer key with spaces in it here",
                             "k<x", "exactly8", "sixteen-bytes-ok"};
static const char *values[] = {"<string>value number 17</string>", "<string></string>", "<integer>42</integer>",
                               "<real>1.5</real>", "<date>2026-01-01T00:00:00Z</date>", "<data>AAEC</data>", "<true/>",
                               "<false/>", "<string>a &amp; b</string>", "<string>\xc3\xa9t\xc3\xa9</string>",
                               "<array/>", "<dict><key>x</key><true/></dict>", "<string>x</strin>", "<stringx>y</stringx>",
                               "<true />", "<integer>1</string>"};

/// prefs_be32_range against a plain loop; prints a line per disagreement and the number of checks.
static void check_range(void) {
    static uint8_t bytes[4 * 1000000 + 8];
    for (size_t i = 0; i < sizeof bytes; i++) bytes[i] = (uint8_t)next(256);
    unsigned long checks = 0;
    for (size_t count = 0; count <= 100; count++) {
        for (size_t shift = 0; shift < 4; shift++) {
            for (int spread = 0; spread < 2; spread++) {
                const uint8_t *p = bytes + shift + 4 * count * spread;
                uint32_t low = 1, high = 1, l = UINT32_MAX, h = 0;
                prefs_be32_range(p, count, &low, &high);
                for (size_t i = 0; i < count; i++) {
                    uint32_t v = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
                    if (v < l) l = v;
                    if (v > h) h = v;
                }
                if (low != l || high != h) printf("range of %zu at +%zu: %u %u, not %u %u\n", count, shift, low, high, l, h);
                checks++;
            }
        }
    }
    uint32_t low, high, l = UINT32_MAX, h = 0;
    bytes[4 * 777777] = 0, bytes[4 * 777777 + 1] = 0;  // a small one somewhere in the middle
    prefs_be32_range(bytes + 1, 1000000, &low, &high);
    for (size_t i = 0; i < 1000000; i++) {
        const uint8_t *q = bytes + 1 + 4 * i;
        uint32_t v = (uint32_t)q[0] << 24 | (uint32_t)q[1] << 16 | (uint32_t)q[2] << 8 | q[3];
        if (v < l) l = v;
        if (v > h) h = v;
    }
    if (low != l || high != h) printf("range of 1M: %u %u, not %u %u\n", low, high, l, h);
    fprintf(stderr, "range: %lu checks\n", checks + 1);
}

int main(void) {
    check_range();
    static uint8_t buffer[8192];
    unsigned long checksum = 0;
    for (int round = 0; round < 50000; round++) {
        size_t length = 0;
        int entries = 1 + (int)next(60);
        for (int e = 0; e < entries && length < sizeof buffer - 200; e++) {
            const char *space = spaces[next(6)];
            const char *key = next(8) ? keys[next(3)] : keys[next(11)];
            const char *value = next(6) ? values[next(8)] : values[next(16)];
            length += (size_t)snprintf((char *)buffer + length, 200, "%s<key>%s</key>%s%s", space, key, spaces[next(6)], value);
        }
        if (next(4) == 0) buffer[next((unsigned)length)] = (uint8_t)"<>&x \x80"[next(6)];
        if (next(3) == 0) length -= next((unsigned)length);
        size_t found = 0, done = prefs_xml_skip_plain_entries(buffer, length, (const uint8_t *)"needle", 6, SIZE_MAX, &found);
        printf("%d %zu %zu %zu\n", round, length, done, found);
        checksum = checksum * 31 + done * 7 + found;
    }
    fprintf(stderr, "checksum %lu\n", checksum);
    return 0;
}
C
flags=(-O2 -static -Wall -Wextra -Werror -I "$c/include" "$work/harness.c" "$c/xml_scan.c" "$c/offsets.c" "$c/cpu.c")
clang "${flags[@]}" -o "$work/sse2"
clang -U__SSE2__ "${flags[@]}" -o "$work/portable"
clang -DPREFS_CPU_USE_CPUID "${flags[@]}" -o "$work/cpuid"
clang --target=aarch64-linux-gnu -fuse-ld=lld "${flags[@]}" -o "$work/neon"
"$work/sse2" >"$work/sse2.out"
"$work/portable" >"$work/portable.out"
qemu-aarch64 "$work/neon" >"$work/neon.out"
qemu-x86_64 -cpu Nehalem "$work/sse2" >"$work/nehalem.out"
# cpuid asks CPUID itself whether AVX2 may be used (cpu.c's code for a libc without <sys/platform/x86.h>).
"$work/cpuid" >"$work/cpuid.out"
qemu-x86_64 -cpu Nehalem "$work/cpuid" >"$work/nehalem-cpuid.out"
grep -q avx2 /proc/cpuinfo || echo "note: this CPU has no AVX2; the AVX2 range code was not run"
skipped=$(awk '$4 > 0' "$work/sse2.out" | wc -l)
failed=0
for out in sse2 portable neon nehalem cpuid nehalem-cpuid; do
  if grep -q '^range' "$work/$out.out"; then echo "$out: the offset range DIFFERS:"; grep -m 3 '^range' "$work/$out.out"; failed=1; fi
done
for variant in portable neon nehalem cpuid nehalem-cpuid; do
  if cmp -s "$work/sse2.out" "$work/$variant.out"; then
    echo "$variant: the same as SSE2 on all 50000 windows ($skipped of them with entries skipped)"
  else
    # (Through a file: `diff | head` under pipefail would end the script at diff's status 1.)
    echo "$variant: DIFFERS from SSE2:"; diff "$work/sse2.out" "$work/$variant.out" >"$work/$variant.diff" || true; head -5 "$work/$variant.diff"; failed=1
  fi
done
exit "$failed"
