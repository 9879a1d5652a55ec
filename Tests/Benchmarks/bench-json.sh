#!/usr/bin/env bash
# JSON decode of a 100k-key document (strings with non-ASCII characters and escapes, integers up to
# 64 bits, reals, booleans, small nested objects and arrays), in process: PrefsCore's
# PropertyList.decode (release build) against CPython's json.loads, each timing only the call on
# bytes already in memory (no process start, no file read). Rounds alternate between the Swift and
# the Python process (REPS runs each, after a warm-up); prints the medians and the ratio.
# Two documents with the same members: shuffled keys (as most programs write JSON) and sorted keys
# (as prefs writes it). Not a test: figures only.
#   Tests/Benchmarks/bench-json.sh [ROUNDS] [REPS]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
rounds=${1:-5}
reps=${2:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# PrefsCore and the harness as one module, as `swift build -c release` would build it, with the C
# target compiled the way SwiftPM does and reached through a module map of our own.
for source in "$root"/Sources/CPrefsSystem/*.c; do
  clang -O2 -c -I "$root/Sources/CPrefsSystem/include" "$source" -o "$work/$(basename "$source" .c).o"
done
printf 'module CPrefsSystem {\n  header "%s"\n  export *\n}\n' "$root/Sources/CPrefsSystem/include/CPrefsSystem.h" >"$work/module.modulemap"
mapfile -t sources < <(find "$root/Sources/PrefsCore" -name '*.swift' | sort)
swiftc -O -wmo -parse-as-library -module-name PrefsCore -Xcc -fmodule-map-file="$work/module.modulemap" \
  -I "$root/Sources/CPrefsSystem/include" "${sources[@]}" "$root/Tests/Benchmarks/JSONBenchmark.swift" \
  "$work"/*.o -o "$work/json-benchmark"
python3 "$root/Tests/Benchmarks/json_benchmark.py" generate "$work"
files=("$work/shuffled.json" "$work/sorted.json")
for _ in $(seq "$rounds"); do
  "$work/json-benchmark" "$reps" "${files[@]}"
  python3 "$root/Tests/Benchmarks/json_benchmark.py" time "$reps" "${files[@]}"
done >"$work/times.tsv"
python3 - "$work/times.tsv" "$(wc -c <"$work/shuffled.json")" <<'PY'
import collections, statistics, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    name, impl, seconds = line.split()
    runs[(name, impl)].append(float(seconds))
print(f"100000 keys, {int(sys.argv[2]) / 1e6:.1f} MB; median of {len(runs[('sorted', 'prefs')])} runs each")
print(f"{'document':<10}{'prefs ms':>10}{'python ms':>11}{'prefs speed vs python':>24}")
for name in ("shuffled", "sorted"):
    p, y = (statistics.median(runs[(name, impl)]) for impl in ("prefs", "python"))
    print(f"{name:<10}{p * 1e3:>10.1f}{y * 1e3:>11.1f}{y / p:>23.2f}x")
PY
