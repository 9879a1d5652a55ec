#!/usr/bin/env bash
# SHA-256 of a 100 MB file, side by side in one run:
#   1. in memory, best of REPS in thread CPU time: PrefsCore's portable Swift code vs the CPU's SHA
#      instructions, on the file's bytes and on 64 KiB that stay in the cache (beside
#      `openssl speed -evp sha256`, which hashes such a buffer);
#   2. whole processes (hyperfine, the file in the page cache; CPU and wall time): sha256-benchmark
#      with each implementation reading the file in 1 MiB pieces as blob checks do,
#      `openssl dgst -sha256`, and coreutils' `sha256sum`. Every digest must agree.
# CPU time is the figure to quote on a shared machine: wall time there includes waiting for a core.
# Not a test: figures only.
#   Tests/Benchmarks/bench-sha256.sh [REPS]        (needs hyperfine and openssl)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
reps=${1:-5}
for tool in hyperfine openssl sha256sum; do
  command -v "$tool" >/dev/null || { echo "needs $tool" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# PrefsCore and this file as one module, as `swift build -c release` would build it, with the C target
# compiled the way SwiftPM does (no -m flags) and reached through a module map of our own.
for source in "$root"/Sources/CPrefsSystem/*.c; do
  clang -O2 -c -I "$root/Sources/CPrefsSystem/include" "$source" -o "$work/$(basename "$source" .c).o"
done
printf 'module CPrefsSystem {\n  header "%s"\n  export *\n}\n' "$root/Sources/CPrefsSystem/include/CPrefsSystem.h" >"$work/module.modulemap"
mapfile -t sources < <(find "$root/Sources/PrefsCore" -name '*.swift' | sort)
swiftc -O -wmo -parse-as-library -module-name PrefsCore -Xcc -fmodule-map-file="$work/module.modulemap" \
  -I "$root/Sources/CPrefsSystem/include" "${sources[@]}" "$root/Tests/Benchmarks/SHA256Benchmark.swift" \
  "$work"/*.o -o "$work/sha256-benchmark"
head -c 100000000 /dev/urandom >"$work/data"
expected=$(sha256sum "$work/data" | cut -c1-64)

echo "100 MB in memory, best of $reps, thread CPU time (in cache: the same bytes from a 64 KiB buffer, as openssl speed):"
printf '  %-28s %9s %9s %15s\n' implementation ms MB/s "in cache MB/s"
while IFS=$'\t' read -r name ms rate cached digest; do
  [ "$digest" = "$expected" ] || { echo "$name: wrong digest $digest" >&2; exit 1; }
  printf '  %-28s %9s %9s %15s\n' "$name" "$ms" "$rate" "$cached"
done < <("$work/sha256-benchmark" memory "$reps" "$work/data")
speed=$(openssl speed -evp sha256 -bytes 65536 -seconds 2 2>/dev/null | awk '$1 == "sha256" { sub(/k$/, "", $2); printf "%.2f", $2 / 1000 }')
printf '  %-28s %9s %9s %15s\n' "openssl speed -evp sha256" - - "$speed"

for mode in portable accelerated; do
  [ "$("$work/sha256-benchmark" "$mode" "$work/data")" = "$expected" ] || { echo "$mode: wrong digest" >&2; exit 1; }
done
[ "$(openssl dgst -sha256 -r "$work/data" | cut -c1-64)" = "$expected" ] || { echo "openssl: wrong digest" >&2; exit 1; }
hyperfine -N --warmup 2 -r "$((reps * 2))" --export-json "$work/p.json" \
  -n portable "$work/sha256-benchmark portable $work/data" \
  -n accelerated "$work/sha256-benchmark accelerated $work/data" \
  -n "openssl dgst -sha256" "openssl dgst -sha256 $work/data" \
  -n sha256sum "sha256sum $work/data" >/dev/null
echo "100 MB file, one process each, $((reps * 2)) runs (hyperfine; CPU = user + system, mean; MB/s = 100 MB / CPU):"
python3 - "$work/p.json" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))["results"]
cpu = {r["command"]: r["user"] + r["system"] for r in results}
print(f"  {'command':<24} {'CPU ms':>8} {'MB/s':>7} {'vs accelerated':>15} {'wall ms best':>13} {'median':>8}")
for r in results:
    c = cpu[r["command"]]
    print(f"  {r['command']:<24} {c * 1e3:>8.1f} {100 / c:>7.0f} {c / cpu['accelerated']:>14.2f}x"
          f" {r['min'] * 1e3:>13.1f} {r['median'] * 1e3:>8.1f}")
PY
