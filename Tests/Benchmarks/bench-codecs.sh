#!/usr/bin/env bash
# Decode and encode of 1k- and 100k-key documents (binary plist, XML plist, JSON): PrefsCore vs
# Foundation (PropertyListSerialization, JSONSerialization) vs CPython (plistlib, json), interleaved
# in one run (rounds alternate between the Swift and Python processes; each keeps its best time).
# Prints every timing and the ratios (how many times faster PrefsCore is). Not a test: no limits.
#   Tests/Benchmarks/bench-codecs.sh [ROUNDS]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
rounds=${1:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mapfile -t sources < <(find "$root/Sources/PrefsCore" -name '*.swift' | sort)
swiftc -O -wmo -parse-as-library -module-name PrefsCore "${sources[@]}" "$root/Tests/Benchmarks/CodecBenchmark.swift" \
  -o "$work/codec-benchmark"
python3 "$root/Tests/Benchmarks/codec_benchmark.py" generate "$work"
for round in $(seq "$rounds"); do
  for size in 1k 100k; do
    reps=$([ "$size" = 1k ] && echo 50 || echo 3)
    files=("$work/$size.bin.plist" "$work/$size.xml.plist" "$work/$size.json")
    "$work/codec-benchmark" "$reps" "$size" "${files[@]}"
    python3 "$root/Tests/Benchmarks/codec_benchmark.py" time "$reps" "$size" "${files[@]}"
  done
done >"$work/times.tsv"
python3 - "$work/times.tsv" <<'PY'
import collections, sys
best = collections.defaultdict(lambda: float("inf"))
for line in open(sys.argv[1]):
    size, fmt, impl, op, t = line.split()
    best[(size, fmt, op, impl)] = min(best[(size, fmt, op, impl)], float(t))
print(f"{'document':<14}{'op':<8}{'prefs ms':>10}{'Foundation ms':>15}{'python ms':>11}{'vs Foundation':>15}{'vs python':>11}")
for size in ("1k", "100k"):
    for fmt in ("binary", "xml", "json"):
        for op in ("decode", "encode"):
            p, f, y = (best[(size, fmt, op, i)] for i in ("prefs", "foundation", "python"))
            print(f"{size + ' ' + fmt:<14}{op:<8}{p*1e3:>10.2f}{f*1e3:>15.2f}{y*1e3:>11.2f}{f/p:>14.1f}x{y/p:>10.1f}x")
PY
