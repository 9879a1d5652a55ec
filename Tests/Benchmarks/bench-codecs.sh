#!/usr/bin/env bash
# Decode and encode of 1k- and 100k-key documents (binary plist, XML plist, JSON): PrefsCore vs
# Foundation (PropertyListSerialization, JSONSerialization) vs CPython (plistlib, json), interleaved
# in one run (rounds alternate between the Swift and Python processes; each keeps its best time).
# Prints every timing and the ratios (how many times faster PrefsCore is). Not a test: no limits.
# --smoke: 10- and 100-key documents, one round of two reps — checks that it runs; the figures mean
# nothing.
#   Tests/Benchmarks/bench-codecs.sh [ROUNDS | --smoke]     (builds the package's CodecBenchmark)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
if [ "${1:-}" = --smoke ]; then
  rounds=1 sizes=(10:10 100:100) reps=(2 2)
else
  rounds=${1:-3} sizes=(1000:1k 100000:100k) reps=(50 3)
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Linked dynamically (a -static-executable Foundation fails to encode property lists: "cannot contain
# objects of type 'Not A Type'"), so in a scratch path of its own, apart from the static `prefs`.
build=(swift build -c release --scratch-path "$root/.build/bench" --product CodecBenchmark)
(cd "$root" && "${build[@]}" -q)
benchmark=$(cd "$root" && "${build[@]}" --show-bin-path)/CodecBenchmark
python3 "$root/Tests/Benchmarks/codec_benchmark.py" generate "$work" "${sizes[@]}"
for round in $(seq "$rounds"); do
  for i in 0 1; do
    size=${sizes[$i]#*:}
    files=("$work/$size.bin.plist" "$work/$size.xml.plist" "$work/$size.json")
    "$benchmark" "${reps[$i]}" "$size" "${files[@]}"
    python3 "$root/Tests/Benchmarks/codec_benchmark.py" time "${reps[$i]}" "$size" "${files[@]}"
  done
done >"$work/times.tsv"
python3 - "$work/times.tsv" "${sizes[@]#*:}" <<'PY'
import collections, sys
best = collections.defaultdict(lambda: float("inf"))
for line in open(sys.argv[1]):
    size, fmt, impl, op, t = line.split()
    best[(size, fmt, op, impl)] = min(best[(size, fmt, op, impl)], float(t))
print(f"{'document':<14}{'op':<8}{'prefs ms':>10}{'Foundation ms':>15}{'python ms':>11}{'vs Foundation':>15}{'vs python':>11}")
for size in sys.argv[2:]:
    for fmt in ("binary", "xml", "json"):
        for op in ("decode", "encode"):
            p, f, y = (best[(size, fmt, op, i)] for i in ("prefs", "foundation", "python"))
            print(f"{size + ' ' + fmt:<14}{op:<8}{p*1e3:>10.2f}{f*1e3:>15.2f}{y*1e3:>11.2f}{f/p:>14.1f}x{y/p:>10.1f}x")
PY
