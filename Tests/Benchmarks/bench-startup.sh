#!/usr/bin/env bash
# What a short command costs in instructions, counted by valgrind's callgrind (the same count for the
# same binary and input whatever else the machine is doing, unlike wall time): `prefs --version`, a
# one-key read of a 1-key XML suite, of a 10-key binary suite, and a one-key write of a 10-key XML
# suite, each beside the part spent in the Swift runtime building type metadata on first use
# (swift_getTypeByMangledName and what it calls) and the number of its conformance scans (each walks
# every conformance record of the binary). A Swift program that prints a line with only Glibc imported
# is the floor. Start-up is most of what small reads and writes cost (see Tests/Benchmarks/README.md, The figures): a
# change that makes these figures jump has put a key path, a Set or Dictionary literal or a protocol
# cast on the start-up path. Beside them, the page faults of the binary as built (wait4's counts,
# through Tools/peak-rss.c): each costs microseconds in a virtual machine, and the release link lays
# out what short commands touch together (Tests/Benchmarks/startup.order): a count that jumps means
# that list is stale (Tests/Benchmarks/make-startup-order.sh writes it again; with --check, which CI
# runs, it says whether it is). Last, how many of
# OpenSSL's functions ran (its CPU set-up before main among them, each CPUID a trap to the hypervisor):
# none should, since a command on files never speaks TLS (Sources/CPrefsTLS/cpu.c). Figures only.
# --smoke: the same (it takes seconds).
#   Tests/Benchmarks/bench-startup.sh [--smoke]     (installs valgrind and gcc when missing)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/Tests/Benchmarks/common.sh"
bench_need valgrind:valgrind python3:python3 gcc:gcc
bench_prefs
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# valgrind cannot read the DWARF 5 that clang writes for the C target: count a copy without it.
strip --strip-debug -o "$work/prefs" "$prefs"
gcc -O2 -o "$work/peak-rss" "$root/Tests/Benchmarks/Tools/peak-rss.c"
printf 'import Glibc\nputs("hello")\n' >"$work/hello.swift"
swiftc -O -static-executable "$work/hello.swift" -o "$work/hello" 2>/dev/null
strip --strip-debug "$work/hello"
export XDG_CONFIG_HOME=$work/config XDG_STATE_HOME=$work/state XDG_DATA_HOME=$work/data XDG_DATA_DIRS=$work/none XDG_CONFIG_DIRS=$work/none
mkdir -p "$XDG_CONFIG_HOME"
"$work/prefs" write one k v
for i in $(seq 0 9); do "$work/prefs" write ten "k$i" "value $i"; done
python3 -c 'import plistlib, sys; d = plistlib.load(open(sys.argv[1], "rb")); open(sys.argv[2], "wb").write(plistlib.dumps(d, fmt=plistlib.FMT_BINARY))' \
  "$XDG_CONFIG_HOME/ten.plist" "$XDG_CONFIG_HOME/tenbin.plist"

# count NAME COMMAND...: instructions, those under swift_getTypeByMangledName, conformance scans, and
# the page faults of the command as built (the binary without its debug information is another file).
count() {
  local name=$1 faults
  shift
  # Both runs start from the same suites (a write's second run would change nothing).
  rm -rf "$work/saved" && cp -a "$XDG_CONFIG_HOME" "$work/saved"
  valgrind --tool=callgrind --callgrind-out-file="$work/cg" "$@" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; return 1; }
  rm -rf "$XDG_CONFIG_HOME" && cp -a "$work/saved" "$XDG_CONFIG_HOME"
  if [ "$1" = "$work/prefs" ]; then faults=$("$work/peak-rss" --faults "$prefs" "${@:2}"); else faults=$("$work/peak-rss" --faults "$@"); fi
  python3 - "$work/cg" "$name" "$faults" <<'PY'
import re, subprocess, sys
out = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", sys.argv[1]], capture_output=True, text=True).stdout
total = metadata = scans = 0
for line in out.splitlines():
    m = re.match(r"\s*([\d,]+) .*PROGRAM TOTALS", line)
    if m: total = int(m.group(1).replace(",", ""))
    m = re.match(r"\s*([\d,]+) \([^)]*\)\s+\?\?\?:swift_getTypeByMangledName \[", line)
    if m: metadata = int(m.group(1).replace(",", ""))
# Each conformance scan is a call of the runtime's walk over the conformance records: the calls
# recorded to that function (names are given once, then referred to by number).
calls = open(sys.argv[1]).read()
names = {m.group(1): m.group(2) for m in re.finditer(r"^c?fn=\((\d+)\) (.+)$", calls, re.M)}
# (OPENSSL_cpuid_setup is prefs's own, which does nothing before TLS is used.)
openssl = sum(1 for v in names.values() if re.match(r"(OPENSSL_|ossl_|SSL_|CRYPTO_|ERR_|EVP_)", v) and not v.startswith("OPENSSL_cpuid_setup"))
scan = {k for k, v in names.items() if v.startswith("swift_conformsToProtocolMaybeInstantiateSuperclasses(") and "::$_" not in v}
lines = calls.splitlines()
for i, line in enumerate(lines[:-1]):
    m = re.match(r"^cfn=\((\d+)\)", line)
    c = re.match(r"^calls=(\d+)", lines[i + 1])
    if m and c and m.group(1) in scan:
        scans += int(c.group(1))
print(f"{sys.argv[2]:<38}{total:>12,}{metadata:>14,}{scans:>8}{sys.argv[3]:>13}{openssl:>9}")
PY
}
printf '%-38s%12s%14s%8s%13s%9s\n' "command" "instructions" "type metadata" "scans" "page faults" "OpenSSL"
count "hello (Swift, Glibc only)" "$work/hello"
count "prefs --version" "$work/prefs" --version
count "prefs read, 1-key XML suite" "$work/prefs" read one k
count "prefs read, 10-key binary suite" "$work/prefs" read tenbin k5
count "prefs write, 10-key XML suite" "$work/prefs" write ten k5 changed
