#!/usr/bin/env bash
# SHA-256 of a 100 MB file, side by side in one run:
#   1. in memory, best of REPS in thread CPU time: PrefsCore's portable Swift code vs the CPU's SHA
#      instructions, on the file's bytes and on 64 KiB that stay in the cache (beside
#      `openssl speed -evp sha256`, which hashes such a buffer); then the tree digest new blobs
#      record (`SHA256Tree`: its 1 MiB pieces hashed four or two at once), checked against Python's;
#   2. whole processes (hyperfine, the file in the page cache; CPU and wall time): sha256-benchmark
#      with each implementation reading the file in 1 MiB pieces as blob checks do,
#      `openssl dgst -sha256`, and coreutils' `sha256sum`. Every digest must agree.
# CPU time is the figure to quote on a shared machine: wall time there includes waiting for a core.
# Not a test: figures only.
# --smoke: 1 MB, one rep — checks that it builds and runs; the figures mean nothing.
#   Tests/Benchmarks/bench-sha256.sh [REPS | --smoke]        (installs hyperfine and openssl if missing)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/Tests/Benchmarks/common.sh"
if [ "${1:-}" = --smoke ]; then reps=1 mb=1; else reps=${1:-5} mb=100; fi
bench_need hyperfine:hyperfine openssl:openssl sha256sum:coreutils python3:python3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bench_build_core "$root" "$work/sha256-benchmark" "$root/Tests/Benchmarks/SHA256Benchmark.swift"
head -c "$((mb * 1000000))" /dev/urandom >"$work/data"
expected=$(sha256sum "$work/data" | cut -c1-64)
expected_tree=$(python3 -c "
import hashlib, sys
data = open(sys.argv[1], 'rb').read()
print(hashlib.sha256(b''.join(hashlib.sha256(data[i:i + (1 << 20)]).digest() for i in range(0, len(data), 1 << 20))).hexdigest())" "$work/data")

echo "$mb MB in memory, best of $reps, thread CPU time (in cache: the same bytes from a 64 KiB buffer, as openssl speed):"
printf '  %-28s %9s %9s %15s\n' implementation ms MB/s "in cache MB/s"
while IFS=$'\t' read -r name ms rate cached digest; do
  case $name in tree*) want=$expected_tree ;; *) want=$expected ;; esac
  [ "$digest" = "$want" ] || { echo "$name: wrong digest $digest" >&2; exit 1; }
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
echo "$mb MB file, one process each, $((reps * 2)) runs (hyperfine; CPU = user + system, mean; MB/s = $mb MB / CPU):"
python3 - "$work/p.json" "$mb" <<'PY'
import json, sys
results, mb = json.load(open(sys.argv[1]))["results"], int(sys.argv[2])
cpu = {r["command"]: r["user"] + r["system"] for r in results}
print(f"  {'command':<24} {'CPU ms':>8} {'MB/s':>7} {'vs accelerated':>15} {'wall ms best':>13} {'median':>8}")
for r in results:
    c = cpu[r["command"]]
    print(f"  {r['command']:<24} {c * 1e3:>8.1f} {mb / c:>7.0f} {c / cpu['accelerated']:>14.2f}x"
          f" {r['min'] * 1e3:>13.1f} {r['median'] * 1e3:>8.1f}")
PY
