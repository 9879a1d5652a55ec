#!/usr/bin/env bash
# Writes Tests/Benchmarks/startup.order: the functions and data short commands touch, those of the
# most common commands first, which the release link (Package.swift) gives lld as
# --symbol-ordering-file so that they sit together. Every page of the binary a command touches costs a page fault (a read of
# code brings in 16 pages at a time, a write to data one), and a page fault in a virtual machine costs
# several microseconds: spread over the 20 MB binary, the faults were a quarter of a one-key read
# (see Tests/Benchmarks/README.md, The figures). Run it after a change that moves a short command's code by much; a stale
# list only makes start-up slower again (bench-startup.sh prints the page faults), never wrong.
#
# It builds the static release binary with a link map, runs the commands below under valgrind
# (callgrind names the functions each runs; lackey, every address each short one reads or writes),
# and names the addresses with nm. A symbol inside a large input section (the standard library's own
# .text, .data and .bss, which are not split per function) goes last: naming it moves the whole
# section, and placed first it would push everything else apart.
#
# The binary it runs is linked in the linker's own order (an empty list given after the package's),
# so what it writes depends on the sources alone, not on the list there is: a second run on the same
# tree writes the same list. It removes the binary afterwards, so that the next release build links
# with the list again (SwiftPM does not relink for a changed list).
#
# --check writes the list to a temporary file instead, and exits 1 with one line saying what to
# run when it differs from Tests/Benchmarks/startup.order (CI runs it: a stale list makes short
# commands slower, never wrong, and lld is told not to warn about names it lacks).
#   Tests/Benchmarks/make-startup-order.sh [--check]     (installs valgrind when missing)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/Tests/Benchmarks/common.sh"
case ${1:-} in
  --check) check=1 ;;
  "") check= ;;
  *) echo "usage: Tests/Benchmarks/make-startup-order.sh [--check]" >&2; exit 64 ;;
esac
bench_need valgrind:valgrind python3:python3
# Every read takes this machine's host ID from /etc/machine-id (ByHost suites): without a valid one
# the reads run other code, and the list would differ from one made where it is.
if ! grep -qE '^[0-9a-f]{32}$' /etc/machine-id 2>/dev/null; then
  echo "make-startup-order.sh: needs /etc/machine-id (32 hex digits), which the reads it runs take the host ID from; create it (systemd-machine-id-setup, or as .ci/run does)" >&2
  exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"; rm -f "$root/.build/release/prefs"' EXIT
order=$root/Tests/Benchmarks/startup.order
written=$order
[ -z "$check" ] || written=$work/startup.order
: >"$work/no.order"
(cd "$root" && "${release_build[@]}" -Xlinker --symbol-ordering-file="$work/no.order" -Xlinker -Map="$work/prefs.map")
# valgrind cannot read the DWARF 5 that clang writes for the C target: run a copy without it.
strip --strip-debug -o "$work/prefs" "$root/.build/release/prefs"
prefs=$work/prefs
export XDG_CONFIG_HOME=$work/config XDG_STATE_HOME=$work/state XDG_DATA_HOME=$work/data XDG_DATA_DIRS=$work/none XDG_CONFIG_DIRS=$work/none
mkdir -p "$XDG_CONFIG_HOME"
for i in $(seq 0 9); do "$prefs" write small "key$i" "value number $i"; done
"$prefs" export small "$XDG_CONFIG_HOME/smallbin.plist" --format binary
python3 - "$XDG_CONFIG_HOME" <<'PY'
import plistlib, sys
keys = {f"key{i}": f"value number {i}" for i in range(100000)}
plistlib.dump(keys, open(sys.argv[1] + "/big.plist", "wb"))
plistlib.dump(keys, open(sys.argv[1] + "/bigbin.plist", "wb"), fmt=plistlib.FMT_BINARY)
PY
head -c 3000000 /dev/urandom >"$work/blob"

# The commands the benchmarks time and scripts run most: short reads and writes of small and large
# XML and binary suites, a missing key, external data. callgrind names the functions each runs;
# lackey, which prints every address read or written in the order the program touches them, is too
# slow for the large ones and names the data of the short ones.
commands=(
  "--version"
  "read small key5" "read smallbin key5" "read small nokey" "read small" "read-type small key5"
  "write small key5 changed" "write smallbin key5 changed" "write small key5 -int 5" "delete small key9" "domains"
  "read big key77777" "read bigbin key77777" "write big key77777 changed" "write bigbin key77777 changed"
  "write small blob -data @$work/blob" "read small blob --raw"
)
: >"$work/functions"
: >"$work/data"
for command in "${commands[@]}"; do
  # shellcheck disable=SC2086 # the commands are words
  valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/callgrind" "$prefs" $command >/dev/null 2>&1 || true
  echo "#" >>"$work/functions"
  sed -n -E 's/^c?fn=\([0-9]+\) (.+)$/\1/p' "$work/callgrind" >>"$work/functions"
  case $command in read\ big* | write\ big* | *blob*) continue ;; esac
  # shellcheck disable=SC2086
  valgrind --tool=lackey --trace-mem=yes --log-file="$work/lackey" "$prefs" $command >/dev/null 2>&1 || true
  python3 -c 'import sys; seen = dict.fromkeys(l[3:].split(",", 1)[0] for l in open(sys.argv[1]) if l[:3] in (" L ", " S ", " M ")); print("\n".join(seen))' "$work/lackey" >>"$work/data"
done

nm -n -S --defined-only "$prefs" >"$work/nm"
python3 - "$work/functions" "$work/data" "$work/nm" "$work/prefs.map" "$written" <<'PY'
import bisect, re, sys
functions_path, data_path, nm_path, map_path, out_path = sys.argv[1:]
# Symbols with their extents (nm -n -S: address size type name; a symbol without a size ends at the next).
symbols = []
for line in open(nm_path):
    fields = line.split()
    if len(fields) == 4:
        symbols.append((int(fields[0], 16), int(fields[1], 16), fields[3]))
    elif len(fields) == 3:
        symbols.append((int(fields[0], 16), 0, fields[2]))
starts = [s[0] for s in symbols]
# Input sections from the link map: VMA LMA Size Align then file:(section).
sections = []
for line in open(map_path):
    fields = line.split(None, 4)
    if len(fields) == 5 and ":(" in fields[4] and fields[0] != "0":
        sections.append((int(fields[0], 16), int(fields[2], 16)))
sections.sort()
section_starts = [s[0] for s in sections]
LARGE = 64 * 1024
by_name = {name: (start, size) for start, size, name in symbols}

def large(address):
    j = bisect.bisect_right(section_starts, address) - 1
    return j >= 0 and sections[j][0] <= address < sections[j][0] + sections[j][1] and sections[j][1] >= LARGE

def containing(address):
    i = bisect.bisect_right(starts, address) - 1
    if i < 0:
        return None
    start, size, name = symbols[i]
    end = start + size if size else (starts[i + 1] if i + 1 < len(starts) else start + 1)
    return name if start <= address < end else None

early, late, named = [], [], set()
def add(name, address):
    if name is None or name in named:
        return
    named.add(name)
    (late if large(address) else early).append(name)

# callgrind names a function it has no symbol for by its address: skipped. glibc picks each string
# function's variant for the CPU (IFUNC), and valgrind's CPU lacks AVX-512: with a variant that ran,
# every variant of the same function is named. The functions each command adds come in the order
# of the commands, the short ones first, each command's in the order the linker gives them by itself
# (file by file, so related code stays together; callgrind lists them in an order that changes from
# one run to the next), without the ones that run only when a thread waits for another (a lock or a
# join taken first), which come and go with timing.
variant = re.compile(r"__(\w+?)_(sse2|sse4|ssse3|avx|avx2|evex|avx512|erms)")
variants = {}
for start, size, name in symbols:
    m = variant.match(name)
    if m:
        variants.setdefault(m.group(1), []).append(name)
# Data a variant reads for some inputs only, named with it: the SSE4.2 strcspn, strspn and strpbrk
# read this table for a string that does not start on 16 bytes, and where strings start depends on
# the environment (CI's list lacked it).
variant_data = {"strcspn": ["___m128i_shift_right"], "strspn": ["___m128i_shift_right"], "strpbrk": ["___m128i_shift_right"]}
waiting = re.compile(r"(__futex_abstimed_wait|__lll_lock_wa|futex_wa|__pthread_cond_wait|__condvar_)")
# prefs's own C code chooses by the CPU too (cpu.h), and valgrind's CPU is the machine's, less some
# instructions (never SHA): where the function that chooses ran, every choice is named with it, so
# that the list is the same on every machine and holds the code a real CPU runs.
chosen = {
    "prefs_be32_range": ["range_avx2"],
    "prefs_sha256_hardware": ["prefs_sha256_compress", "prefs_sha256_compress_lanes", "prefs_sha256_compress_x86",
                              "prefs_sha256_compress_pair_x86", "prefs_sha256_compress_four_x86"],
}
commands = [[]]
for line in open(functions_path):
    name = line.strip()
    if name == "#":
        commands.append([])
        continue
    m = variant.match(name)
    names = variants.get(m.group(1), []) + variant_data.get(m.group(1), []) if m else [name] + chosen.get(name, [])
    commands[-1].extend(each for each in names if each in by_name and not waiting.match(each))
for names in commands:
    for name in sorted(set(names), key=lambda name: (by_name[name][0], name)):
        add(name, by_name[name][0])
for line in open(data_path):
    if line.strip():
        address = int(line, 16)
        add(containing(address), address)
with open(out_path, "w") as out:
    out.write("# Written by Tests/Benchmarks/make-startup-order.sh: lld's --symbol-ordering-file for the release link.\n")
    out.write("".join(name + "\n" for name in early + late))
print(f"{len(early)} symbols first, {len(late)} in large sections last: {out_path}")
PY
if [ -n "$check" ] && ! cmp -s "$written" "$order"; then
  differing=$(diff "$order" "$written" | sed -n 's/^</-/p; s/^>/+/p' || true)
  echo "Tests/Benchmarks/startup.order is stale (lines differing: $(grep -c . <<<"$differing"); $(head -4 <<<"$differing" | tr '\n' ' ')…): run Tests/Benchmarks/make-startup-order.sh and commit what it writes" >&2
  exit 1
fi
