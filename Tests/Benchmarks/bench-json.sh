#!/usr/bin/env bash
# JSON decode of a 100k-key document (strings with non-ASCII characters and escapes, integers up to
# 64 bits, reals, booleans, small nested objects and arrays), in process: PrefsCore's
# PropertyList.decode (release build) against CPython's json.loads, each timing only the call on
# bytes already in memory (no process start, no file read). Rounds alternate between the Swift and
# the Python process (REPS runs each, after a warm-up); prints the medians of wall time and of the
# thread's CPU time (the figure to trust on a busy machine) and the ratios.
# Two documents with the same members: shuffled keys (as most programs write JSON) and sorted keys
# (as prefs writes it). With a git revision, PrefsCore as it was there ("before") is built and timed
# in the same rounds. Not a test: figures only.
# --smoke: 1000 keys, one round of one run — checks that it builds and runs; the figures mean nothing.
#   Tests/Benchmarks/bench-json.sh [ROUNDS] [REPS] [REVISION] | --smoke
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/Tests/Benchmarks/common.sh"
if [ "${1:-}" = --smoke ]; then
  rounds=1 reps=1 revision= keys=1000
else
  rounds=${1:-5} reps=${2:-3} revision=${3:-} keys=100000
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
build() {  # build SOURCES-ROOT OUTPUT
  bench_build_core "$1" "$2" "$root/Tests/Benchmarks/JSONBenchmark.swift"
}
build "$root" "$work/json-benchmark"
if [ -n "$revision" ]; then
  mkdir "$work/before"
  git -C "$root" archive "$revision" Sources/PrefsCore | tar -x -C "$work/before"
  build "$work/before" "$work/json-benchmark-before"
fi
python3 "$root/Tests/Benchmarks/json_benchmark.py" generate "$work" "$keys"
files=("$work/shuffled.json" "$work/sorted.json")
for _ in $(seq "$rounds"); do
  "$work/json-benchmark" "$reps" "${files[@]}"
  if [ -n "$revision" ]; then "$work/json-benchmark-before" "$reps" "${files[@]}" | sed 's/\tprefs\t/\tbefore\t/'; fi
  python3 "$root/Tests/Benchmarks/json_benchmark.py" time "$reps" "${files[@]}"
done >"$work/times.tsv"
python3 - "$work/times.tsv" "$(wc -c <"$work/shuffled.json")" "$keys" <<'PY'
import collections, statistics, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    name, impl, wall, cpu = line.split()
    runs[(name, impl, "wall")].append(float(wall))
    runs[(name, impl, "cpu")].append(float(cpu))
print(f"{sys.argv[3]} keys, {int(sys.argv[2]) / 1e6:.1f} MB; median of {len(runs[('sorted', 'prefs', 'cpu')])} runs each")
before = ("before", "prefs") if runs[("sorted", "before", "cpu")] else ("prefs",)
print(f"{'document':<10}{'time':<6}" + "".join(f"{impl + ' ms':>11}{'vs python':>11}" for impl in before) + f"{'python ms':>11}")
for name in ("shuffled", "sorted"):
    for clock in ("wall", "cpu"):
        y = statistics.median(runs[(name, "python", clock)])
        line = f"{name:<10}{clock:<6}"
        for impl in before:
            p = statistics.median(runs[(name, impl, clock)])
            line += f"{p * 1e3:>11.1f}{y / p:>10.2f}x"
        print(line + f"{y * 1e3:>11.1f}")
print("(vs python: python's time / prefs' time; above 1 is faster than CPython's json)")
PY
