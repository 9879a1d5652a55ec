#!/usr/bin/env bash
# Runs CPrefsSystem's SHA-256 compression where this machine cannot: the ARMv8 SHA2 code under
# qemu-aarch64 (CPU models max, cortex-a57, cortex-a53), and the x86 build on a CPU without the SHA
# extensions (qemu-x86_64 -cpu Nehalem: it must find none and run nothing). A small C harness hashes
# every prefix 0…1000 bytes of a 3 MB random file (at shifting alignments), the whole file, and
# 1 to 5 equal slices at once (prefs_sha256_compress_lanes, lengths 64 bytes to 256 KiB); CPython's
# hashlib is the oracle. Not part of `swift test`: a manual check after editing sha256.c.
#   Tests/CrossArch/check-sha256-qemu.sh
#   (needs: apt-get install qemu-user libc6-dev-arm64-cross libgcc-12-dev-arm64-cross)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
c=$root/Sources/CPrefsSystem
for tool in clang qemu-aarch64 qemu-x86_64 python3; do
  command -v "$tool" >/dev/null || { echo "needs $tool" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/harness.c" <<'C'
#include "CPrefsSystem.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The digest of `length` bytes from `bytes`: whole blocks in one call, then the padded tail.
static void digest(const unsigned char *bytes, size_t length, char hex[65]) {
    uint32_t state[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    size_t whole = length / 64, rest = length % 64, total = rest + 9 <= 64 ? 64 : 128;
    if (whole) prefs_sha256_compress(state, bytes, whole);
    unsigned char tail[128] = {0};
    memcpy(tail, bytes + 64 * whole, rest);
    tail[rest] = 0x80;
    for (int i = 0; i < 8; i++) tail[total - 1 - i] = (unsigned char)((uint64_t)length * 8 >> (8 * i));
    prefs_sha256_compress(state, tail, total / 64);
    for (int i = 0; i < 8; i++) snprintf(hex + 8 * i, 9, "%08x", state[i]);
}

// The digests of `lanes` slices of `length` bytes (a multiple of 64) at `bytes`, one after the
// other, hashed at once.
static void digestLanes(const unsigned char *bytes, size_t length, size_t lanes) {
    uint32_t states[5][8];
    uint32_t *statePointers[5];
    const void *blocks[5], *padding[5];
    unsigned char tail[64] = {0x80};
    for (int i = 0; i < 8; i++) tail[63 - i] = (unsigned char)((uint64_t)length * 8 >> (8 * i));
    for (size_t lane = 0; lane < lanes; lane++) {
        uint32_t initial[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
        memcpy(states[lane], initial, sizeof initial);
        statePointers[lane] = states[lane];
        blocks[lane] = bytes + lane * length;
        padding[lane] = tail;
    }
    prefs_sha256_compress_lanes(statePointers, blocks, lanes, length / 64);
    prefs_sha256_compress_lanes(statePointers, padding, lanes, 1);
    for (size_t lane = 0; lane < lanes; lane++) {
        for (int i = 0; i < 8; i++) printf("%08x", states[lane][i]);
        printf("\n");
    }
}

int main(int argc, char **argv) {
    FILE *file = argc == 2 ? fopen(argv[1], "rb") : NULL;
    if (!file) return 2;
    static unsigned char bytes[4 << 20];
    size_t size = fread(bytes, 1, sizeof bytes, file);
    printf("hardware %d\n", prefs_sha256_hardware());
    if (prefs_sha256_hardware() == PREFS_SHA256_PORTABLE) return 0;
    char hex[65];
    for (size_t length = 0; length <= 1000; length++) {
        digest(bytes + length % 7, length, hex);
        printf("%s\n", hex);
    }
    digest(bytes, size, hex);
    printf("%s\n", hex);
    for (size_t lanes = 1; lanes <= 5; lanes++) {
        for (size_t length = 64; length <= 256 << 10; length *= 8) digestLanes(bytes + lanes, length, lanes);
    }
    return 0;
}
C
head -c 3000017 /dev/urandom >"$work/data"
python3 - "$work/data" >"$work/expected" <<'PY'
import hashlib, sys
data = open(sys.argv[1], "rb").read()
for n in range(1001):
    print(hashlib.sha256(data[n % 7:n % 7 + n]).hexdigest())
print(hashlib.sha256(data).hexdigest())
for lanes in range(1, 6):
    length = 64
    while length <= 256 << 10:
        for lane in range(lanes):
            print(hashlib.sha256(data[lanes + lane * length:lanes + (lane + 1) * length]).hexdigest())
        length *= 8
PY
flags=(-O2 -static -Wall -Wextra -Werror -I "$c/include" "$work/harness.c" "$c/sha256.c" "$c/cpu.c")
clang --target=aarch64-linux-gnu -fuse-ld=lld "${flags[@]}" -o "$work/arm"
clang "${flags[@]}" -o "$work/x86"
clang -DPREFS_CPU_USE_CPUID "${flags[@]}" -o "$work/x86-cpuid"
failed=0
for cpu in max cortex-a57 cortex-a53; do
  qemu-aarch64 -cpu "$cpu" "$work/arm" "$work/data" >"$work/out"
  if [ "$(head -1 "$work/out")" = "hardware 2" ] && tail -n +2 "$work/out" | cmp -s - "$work/expected"; then
    echo "aarch64 $cpu: ARMv8 SHA2 found, $(($(wc -l <"$work/out") - 1)) digests agree with hashlib"
  else
    echo "aarch64 $cpu: FAILED ($(head -1 "$work/out"))"; failed=1
  fi
done
# The x86 build asks glibc; x86-cpuid asks CPUID itself (cpu.c's code for a libc without <sys/platform/x86.h>).
for build in x86 x86-cpuid; do
  qemu-x86_64 -cpu Nehalem "$work/$build" "$work/data" >"$work/out"
  if [ "$(cat "$work/out")" = "hardware 0" ]; then echo "$build on Nehalem: no SHA extensions found, none used"; else echo "$build on Nehalem: FAILED"; failed=1; fi
  if grep -q -w sha_ni /proc/cpuinfo; then
    "$work/$build" "$work/data" >"$work/out"
    if [ "$(head -1 "$work/out")" = "hardware 1" ] && tail -n +2 "$work/out" | cmp -s - "$work/expected"; then
      echo "$build on this CPU: SHA extensions found, $(($(wc -l <"$work/out") - 1)) digests agree with hashlib"
    else
      echo "$build on this CPU: FAILED ($(head -1 "$work/out"))"; failed=1
    fi
  fi
done
exit "$failed"
